import { afterAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolCallInChild } from "@plugboard/test-helpers";

// A full disk and a read-only file system, for real: the child runs in its own mount
// namespace (so the mounts vanish with it) over a tiny tmpfs mounted on the workspace.
const root = await mkdtemp(join(tmpdir(), "plugboard-write-file-os-"));
afterAll(() => rm(root, { recursive: true, force: true }));

const onTmpfs = (script: string) => ["unshare", "--mount", "--propagation", "private", "sh", "-c", `${script} && exec "$@"`, root];

const write = (prefix: readonly string[], path: string, content: string) =>
  toolCallInChild(join(import.meta.dir, "index.ts"), { root, prefix, tool: "write_file", args: { path, content } });

test("a full disk is an Error: result (ENOSPC)", async () => {
  const { result } = await write(onTmpfs('mount -t tmpfs -o size=16k tmpfs "$0"'), "big.txt", "x".repeat(60_000));
  expect(result).toEqual({ content: "Error: No space left on the device to write big.txt", isError: true });
});

test("a read-only file system is an Error: result (EROFS), for an existing file and a new one", async () => {
  const readOnly = onTmpfs('mount -t tmpfs tmpfs "$0" && echo old > "$0/old.txt" && mount -o remount,ro "$0"');
  expect((await write(readOnly, "old.txt", "new")).result).toEqual({ content: "Error: Read-only file system: old.txt", isError: true });
  expect((await write(readOnly, "dir/new.txt", "new")).result).toEqual({
    content: "Error: Read-only file system: dir/new.txt",
    isError: true,
  });
});
