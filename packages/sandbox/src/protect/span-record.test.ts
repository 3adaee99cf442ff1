/**
 * The record of writable spans kept by processes of the same user at once (the CLI and
 * `plugboard web`, two terminals): real `bun` processes begin, end and trust at the same moment,
 * die with a span open; an earlier version's single record file is moved in; old spans dropped.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@plugboard/test-helpers";
import { PlugboardError } from "@plugboard/errors";
import { beginWritableSpan, createdWhileWritable, refusePlanted } from "./planted-files.ts";
import { KEPT, listSpans } from "./span-record.ts";

afterEach(() => removeTempDirs());

/** Files are stamped with the kernel's coarse clock: a wait of a few of its ticks puts what is made after a span's end outside it. */
const ticks = () => Bun.sleep(50);

const newRecord = async () => join(await tempDir(), "plugboard", "writable-spans");

/** Whether the next start refuses `path` as planted. */
function refused(record: string, path: string): boolean {
  try {
    refusePlanted(record, path, "the .env");
    return false;
  } catch (error) {
    if (error instanceof PlugboardError && error.code === "PLANTED_FILE") return true;
    throw error;
  }
}

/** One Plugboard process as a separate `bun`: it waits for `go`, then begins a span for its workspace, plants `.env` there and ends the span (or leaves it open and exits; or trusts the `.env` there). */
const OWNER = `
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beginWritableSpan, trustFile } from ${JSON.stringify(join(import.meta.dir, "planted-files.ts"))};
const [record, workspace, ready, go, act] = process.argv.slice(2) as [string, string, string, string, string];
writeFileSync(ready, "");
while (!existsSync(go)) await Bun.sleep(1);
if (act === "trust") {
  trustFile(record, join(workspace, ".env"));
  process.exit(0);
}
const end = beginWritableSpan(record, workspace, (message) => console.error(message));
writeFileSync(join(workspace, ".env"), "BASE_URL=http://attacker\\n");
if (act === "open") process.exit(0);
end();
`;

/** Runs `count` owners at once (each waits at a barrier until all are ready); their workspaces. */
async function owners(record: string, count: number, act: "ended" | "open" | "trust" = "ended", given?: readonly string[]): Promise<readonly string[]> {
  const folder = await tempDir();
  const script = join(folder, "owner.ts");
  writeFileSync(script, OWNER);
  const workspaces = given ?? (await Promise.all(Array.from({ length: count }, () => tempDir())));
  const go = join(folder, "go");
  const children = workspaces.map((workspace, index) =>
    Bun.spawn(["bun", script, record, workspace, join(folder, `ready-${index}`), go, act], { stdout: "inherit", stderr: "pipe" }),
  );
  while (!workspaces.every((_, index) => existsSync(join(folder, `ready-${index}`)))) await Bun.sleep(5);
  writeFileSync(go, "");
  const results = await Promise.all(children.map(async (child) => ({ code: await child.exited, stderr: await new Response(child.stderr).text() })));
  expect(results).toEqual(workspaces.map(() => ({ code: 0, stderr: "" })));
  return workspaces;
}

describe("processes of the same user at once", () => {
  test("eight processes beginning and ending their spans at the same moment: every span is kept, each planted .env is refused and reported", async () => {
    const record = await newRecord();
    const workspaces = await owners(record, 8);
    const found = workspaces.map((workspace) => ({ refused: refused(record, join(workspace, ".env")), reported: createdWhileWritable(record, join(workspace, ".env")) }));
    expect(found).toEqual(workspaces.map(() => ({ refused: true, reported: true })));
  }, 60_000);

  test("eight processes trusting their own .env at the same moment: every one is read", async () => {
    const record = await newRecord();
    const workspaces = await Promise.all(Array.from({ length: 8 }, () => tempDir()));
    const ends = workspaces.map((workspace) => beginWritableSpan(record, workspace, () => {}));
    for (const workspace of workspaces) writeFileSync(join(workspace, ".env"), "x\n");
    expect(workspaces.map((workspace) => refused(record, join(workspace, ".env")))).toEqual(workspaces.map(() => true));
    await owners(record, workspaces.length, "trust", workspaces);
    for (const end of ends) end();
    expect(workspaces.map((workspace) => refused(record, join(workspace, ".env")))).toEqual(workspaces.map(() => false));
  }, 60_000);

  test("the span of a process killed before ending it ends when found: what was made until then is refused, what is made after the next start is read", async () => {
    const record = await newRecord();
    const [workspace] = (await owners(record, 1, "open")) as [string];
    expect(refused(record, join(workspace, ".env"))).toBe(true);
    beginWritableSpan(record, await tempDir(), () => {})();
    await ticks();
    const later = join(workspace, "later.env");
    writeFileSync(later, "x\n");
    expect([refused(record, join(workspace, ".env")), refused(record, later), createdWhileWritable(record, later)]).toEqual([true, false, false]);
  }, 60_000);

  test("the single record file of earlier versions still counts, is moved into the record at the next start and not written again", async () => {
    const [workspace, record] = [await tempDir(), await newRecord()];
    const [planted, trusted, leftOpen] = ["planted.env", "trusted.env", "open.env"].map((name) => join(workspace, name)) as [string, string, string];
    for (const path of [planted, trusted]) writeFileSync(path, "x\n");
    const dead = Bun.spawnSync(["true"]).pid;
    const { ino, ctimeMs } = statSync(trusted);
    const times = [planted, trusted].map((path) => statSync(path).ctimeMs);
    const other = await tempDir();
    const old = {
      spans: [
        { workspace, start: Math.min(...times) - 1, end: Math.max(...times) + 1, pid: dead },
        { workspace: other, start: Math.min(...times) - 1, end: null, pid: dead },
      ],
      trusted: [{ path: trusted, ino, ctime: ctimeMs }],
    };
    mkdirSync(join(record, ".."), { recursive: true });
    writeFileSync(`${record}.json`, JSON.stringify(old));
    writeFileSync(`${record}.json.${dead}.tmp`, JSON.stringify(old));
    writeFileSync(join(other, "open.env"), "x\n");
    const seen = () => [refused(record, planted), refused(record, trusted), refused(record, join(other, "open.env"))];
    expect(seen()).toEqual([true, false, true]);
    beginWritableSpan(record, leftOpen, () => {})();
    expect(seen()).toEqual([true, false, true]);
    expect([existsSync(`${record}.json`), existsSync(`${record}.json.${dead}.tmp`)]).toEqual([false, false]);
    // The old span left open ended when it was moved: a file made in its workspace now is read.
    await ticks();
    writeFileSync(join(other, "later.env"), "x\n");
    expect(refused(record, join(other, "later.env"))).toBe(false);
    beginWritableSpan(record, leftOpen, () => {})();
    expect(existsSync(`${record}.json`)).toBe(false);
  });

  test("a start lists only the spans begun by the time it asks about: those that can hold a file changed then", async () => {
    const record = await newRecord();
    const workspace = await tempDir();
    beginWritableSpan(record, workspace, () => {})();
    await ticks();
    writeFileSync(join(workspace, ".env"), "x\n");
    const changed = statSync(join(workspace, ".env")).ctimeMs;
    await ticks();
    const endLater = beginWritableSpan(record, workspace, () => {});
    const starts = listSpans(record, Number.POSITIVE_INFINITY).map(({ start }) => start);
    expect(starts).toHaveLength(2);
    expect(listSpans(record, changed).map(({ start }) => start)).toEqual([Math.min(...starts)]);
    expect(listSpans(record, Math.min(...starts) - 1)).toEqual([]);
    // The .env changed between the two spans, in neither: still read, while the later span is open.
    expect(refused(record, join(workspace, ".env"))).toBe(false);
    endLater();
  });

  test(`beyond ${KEPT} spans the oldest ended ones are dropped; an open one older than them, and the newest, are kept`, async () => {
    const record = await newRecord();
    const [dropped, open, newest] = [await tempDir(), await tempDir(), await tempDir()];
    const endDropped = beginWritableSpan(record, dropped, () => {});
    const endOpen = beginWritableSpan(record, open, () => {});
    writeFileSync(join(dropped, ".env"), "x\n");
    writeFileSync(join(open, ".env"), "x\n");
    endDropped();
    expect(refused(record, join(dropped, ".env"))).toBe(true);
    for (let index = 0; index < KEPT; index++) beginWritableSpan(record, newest, () => {})();
    // Each beginning tidies the record once what began it has run.
    await new Promise((done) => setImmediate(done));
    expect(listSpans(record, Number.POSITIVE_INFINITY)).toHaveLength(KEPT);
    const last = beginWritableSpan(record, newest, () => {});
    writeFileSync(join(newest, ".env"), "x\n");
    last();
    endOpen();
    expect([refused(record, join(dropped, ".env")), refused(record, join(open, ".env")), refused(record, join(newest, ".env"))]).toEqual([false, true, true]);
  }, 60_000);
});
