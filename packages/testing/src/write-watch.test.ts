import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { watchWrites, writeWatchUnavailable } from "./write-watch.ts";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-write-watch-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test.skipIf(writeWatchUnavailable() !== undefined)("sees what a process and its running descendants write, anywhere, and nothing of others", async () => {
  const watch = await watchWrites();
  if (watch === undefined) throw new Error("fanotify did not start although writeWatchUnavailable() said it could");
  const appended = join(dir, "appended.log");
  const created = join(dir, "created.txt");
  // The shell appends itself; its child shell (still running when the event is read) creates an empty file.
  const tree = Bun.spawn(["sh", "-c", `echo hi >> ${appended}; sh -c ': > ${created}; sleep 0.3'`]);
  await writeFile(join(dir, "by-the-watcher-itself.txt"), "x");
  await tree.exited;
  expect(watch.stop(tree.pid)).toEqual([
    { path: appended, operation: "wrote to" },
    { path: created, operation: "opened for writing" },
  ]);
  expect(watch.lost).toBe(false);
});
