import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@plugboard/test-helpers";
import { PlugboardError } from "@plugboard/errors";
import { beginWritableSpan, plantedRecordFile, refusePlanted, trustFile, writeTrusted } from "./planted-files.ts";

afterEach(() => removeTempDirs());

/** Files are stamped with the kernel's coarse clock: a wait of a few of its ticks puts a span's start after what was made before it. */
const ticks = () => Bun.sleep(50);

async function setting() {
  const [workspace, state] = [await tempDir(), await tempDir()];
  return { workspace, record: join(state, "plugboard", "writable-spans"), warnings: [] as string[] };
}

const refusal = (record: string, path: string): string | undefined => {
  try {
    refusePlanted(record, path, "the .env beside the config");
    return undefined;
  } catch (error) {
    if (!(error instanceof PlugboardError)) throw error;
    expect(error.code).toBe("PLANTED_FILE");
    return error.message;
  }
};

describe("files that appeared while plugins could write", () => {
  test("a file made within a span is refused, naming it and the fix; trusted, it is read; a new one at its path is refused again", async () => {
    const { workspace, record, warnings } = await setting();
    const end = beginWritableSpan(record, workspace, (message) => warnings.push(message));
    const env = join(workspace, ".env");
    writeFileSync(env, "BASE_URL=http://attacker\n");
    end();
    expect(refusal(record, env)).toMatch(new RegExp(`^${env} \\(the \\.env beside the config\\) was created at .*, while plugins could write ${workspace}, so a plugin may have written it`));
    trustFile(record, env);
    expect(refusal(record, env)).toBeUndefined();
    rmSync(env);
    await Bun.sleep(5);
    const again = beginWritableSpan(record, workspace, (message) => warnings.push(message));
    writeFileSync(env, "BASE_URL=http://attacker-again\n");
    again();
    expect(refusal(record, env)).toBeString();
    expect(warnings).toEqual([]);
  });

  test("a file made before any span, after one ended, or outside the span's workspace is read", async () => {
    const { workspace, record } = await setting();
    const before = join(workspace, "before.env");
    writeFileSync(before, "x\n");
    await Bun.sleep(250);
    beginWritableSpan(record, workspace, () => {})();
    await Bun.sleep(250);
    const after = join(workspace, "after.env");
    writeFileSync(after, "x\n");
    const elsewhere = join(await tempDir(), ".env");
    writeFileSync(elsewhere, "x\n");
    expect([refusal(record, before), refusal(record, after), refusal(record, elsewhere)]).toEqual([undefined, undefined, undefined]);
  });

  test("a record that cannot be written is said, and refuses nothing", async () => {
    const { workspace } = await setting();
    const blocker = join(await tempDir(), "a-file");
    writeFileSync(blocker, "");
    chmodSync(blocker, 0o400);
    const warnings: string[] = [];
    beginWritableSpan(join(blocker, "plugboard", "writable-spans"), workspace, (message) => warnings.push(message))();
    expect(warnings).toEqual([expect.stringContaining(`cannot record in ${join(blocker, "plugboard", "writable-spans")} that plugins may write ${workspace}`)]);
  });

  test("the record lives in the user's state folder", () => {
    expect(plantedRecordFile({ XDG_STATE_HOME: "/s", HOME: "/h" })).toBe("/s/plugboard/writable-spans");
    expect(plantedRecordFile({ HOME: "/h" })).toBe("/h/.local/state/plugboard/writable-spans");
    expect(plantedRecordFile({})).toBeUndefined();
  });
});

describe("files changed, renamed or relinked while plugins could write (ctime, not birth)", () => {
  /** An old file in the workspace, then a span (left open, as while the app runs) in which the test plays the plugin. */
  async function during(files: Record<string, string>) {
    const { workspace, record } = await setting();
    for (const [name, content] of Object.entries(files)) writeFileSync(join(workspace, name), content);
    await ticks();
    const end = beginWritableSpan(record, workspace, () => {});
    return { workspace, record, end };
  }

  test("an old file rewritten and renamed over the .env is refused as changed, its own edit named; trusted, it is read", async () => {
    const { workspace, record, end } = await during({ "notes.txt": "my notes\n" });
    const env = join(workspace, ".env");
    writeFileSync(join(workspace, "notes.txt"), "BASE_URL=http://attacker\n");
    renameSync(join(workspace, "notes.txt"), env);
    end();
    const message = refusal(record, env);
    expect(message).toStartWith(`${env} (the .env beside the config) was changed at `);
    expect(message).toContain(`(written, renamed, linked or its mode changed), while plugins could write ${workspace}, so a plugin may have changed it (or it is your own edit, made while they could)`);
    expect(message).toEndWith(`Read it: if it is yours, run plugboard trust ${env}; if not, delete it.`);
    trustFile(record, env);
    expect(refusal(record, env)).toBeUndefined();
  });

  test("a chmod, or a same-size rewrite with the old times set back, is refused; the same file untouched is read", async () => {
    const { workspace, record, end } = await during({ "a.json": '{"model":{"name":"mine"}}\n', "b.json": '{"model":{"name":"mine"}}\n', "c.json": "{}\n" });
    const [a, b, c] = ["a.json", "b.json", "c.json"].map((name) => join(workspace, name)) as [string, string, string];
    chmodSync(a, 0o600);
    const { atime, mtime, size } = statSync(b);
    writeFileSync(b, '{"model":{"name":"evil"}}\n');
    utimesSync(b, atime, mtime);
    expect(statSync(b)).toMatchObject({ size, mtimeMs: mtime.getTime() });
    end();
    expect(refusal(record, a)).toContain("was changed at ");
    expect(refusal(record, b)).toContain("was changed at ");
    expect(refusal(record, c)).toBeUndefined();
  });

  test("a link on the way pointed elsewhere is refused, naming the link, though what it leads to is old; a folder's link too", async () => {
    const { workspace, record } = await setting();
    writeFileSync(join(workspace, "local.env"), "BASE_URL=http://mine\n");
    writeFileSync(join(workspace, "notes.txt"), "BASE_URL=http://other\n");
    mkdirSync(join(workspace, "old-conf"));
    writeFileSync(join(workspace, "old-conf", ".env"), "BASE_URL=http://other\n");
    const env = join(workspace, ".env");
    // The person's own link, made before any span: read.
    symlinkSync("local.env", env);
    await ticks();
    const end = beginWritableSpan(record, workspace, () => {});
    expect(refusal(record, env)).toBeUndefined();
    rmSync(env);
    symlinkSync("notes.txt", env);
    symlinkSync(join(workspace, "old-conf"), join(workspace, "conf"));
    end();
    expect(refusal(record, env)).toStartWith(`${env} (the .env beside the config) is reached through the link ${env}, which was made at `);
    expect(refusal(record, join(workspace, "conf", ".env"))).toContain(`is reached through the link ${join(workspace, "conf")}, which was made at `);
    trustFile(record, env);
    expect(refusal(record, env)).toBeUndefined();
  });

  test("what the app writes itself is read at the next start; a change after it is refused again; a suspect file it edits stays suspect", async () => {
    const { workspace, record, end } = await during({ "plugboard.config.json": "{}\n", "planted.json": "{}\n" });
    const config = join(workspace, "plugboard.config.json");
    await writeTrusted(record, config, async () => writeFileSync(config, '{"policy":{"rules":[]}}\n'));
    await writeTrusted(record, config, async () => writeFileSync(config, '{"policy":{"rules":[{"tool":"bash","action":"allow"}]}}\n'));
    expect(refusal(record, config)).toBeUndefined();
    // A plugin's rewrite of another file, then the app's edit of it: the edit does not vouch for the rewrite.
    const planted = join(workspace, "planted.json");
    writeFileSync(planted, '{"hooks":{}}\n');
    await writeTrusted(record, planted, async () => writeFileSync(planted, '{"hooks":{},"plugins":[]}\n'));
    expect(refusal(record, planted)).toBeString();
    // The person's own edit while the span is open: refused, as any change is.
    writeFileSync(config, "{}\n");
    end();
    expect(refusal(record, config)).toContain("(or it is your own edit, made while they could)");
  });

  test("a new file the app writes (the lock, first pinned) is read at the next start", async () => {
    const { workspace, record, end } = await during({});
    const lock = join(workspace, "plugboard.lock.json");
    await writeTrusted(record, lock, async () => writeFileSync(lock, "{}\n"));
    end();
    expect(refusal(record, lock)).toBeUndefined();
  });
});
