import { afterEach, describe, expect, test } from "bun:test";
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "../test/temp-config.ts";
import { PlugboardError } from "./errors.ts";
import { beginWritableSpan, plantedRecordFile, refusePlanted, trustFile } from "./planted-files.ts";

afterEach(() => removeTempDirs());

async function setting() {
  const [workspace, state] = [await tempDir(), await tempDir()];
  return { workspace, record: join(state, "plugboard", "writable-spans.json"), warnings: [] as string[] };
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

  test("the span of an app that died without ending it ends when the next one begins", async () => {
    const { workspace, record } = await setting();
    const dead = Bun.spawnSync(["true"]).pid;
    beginWritableSpan(record, workspace, () => {});
    const spans = JSON.parse(readFileSync(record, "utf8")) as { spans: { pid: number; end: number | null }[] };
    spans.spans[0] = { ...spans.spans[0], pid: dead, end: null } as { pid: number; end: number | null };
    writeFileSync(record, JSON.stringify(spans));
    const open = join(workspace, "during.env");
    writeFileSync(open, "x\n");
    // Its process is gone: the span ends now, when it is found, and covers what was made until then.
    beginWritableSpan(record, await tempDir(), () => {})();
    expect(refusal(record, open)).toBeString();
    await Bun.sleep(250);
    const later = join(workspace, "later.env");
    writeFileSync(later, "x\n");
    expect(refusal(record, later)).toBeUndefined();
  });

  test("a record that cannot be written is said, and refuses nothing", async () => {
    const { workspace } = await setting();
    const blocker = join(await tempDir(), "a-file");
    writeFileSync(blocker, "");
    chmodSync(blocker, 0o400);
    const warnings: string[] = [];
    beginWritableSpan(join(blocker, "plugboard", "writable-spans.json"), workspace, (message) => warnings.push(message))();
    expect(warnings).toEqual([expect.stringContaining(`cannot record in ${join(blocker, "plugboard", "writable-spans.json")} that plugins may write ${workspace}`)]);
  });

  test("the record lives in the user's state folder", () => {
    expect(plantedRecordFile({ XDG_STATE_HOME: "/s", HOME: "/h" })).toBe("/s/plugboard/writable-spans.json");
    expect(plantedRecordFile({ HOME: "/h" })).toBe("/h/.local/state/plugboard/writable-spans.json");
    expect(plantedRecordFile({})).toBeUndefined();
  });
});
