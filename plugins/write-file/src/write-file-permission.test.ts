import { afterAll, expect, test } from "bun:test";
import { chmod, chown, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolCallInChild } from "@plugboard/test-helpers";

// Root may write any file, so the rule is checked as `nobody`, in a child process that calls
// the tool through the runtime. The folder is nobody's: a rename over the file would succeed.
const NOBODY = 65534;
const root = await mkdtemp(join(tmpdir(), "plugboard-write-file-ro-"));
await chmod(root, 0o755);
await chown(root, NOBODY, NOBODY);
afterAll(() => rm(root, { recursive: true, force: true }));

async function writeAsNobody(path: string, mode: number) {
  await writeFile(join(root, path), "old\n");
  await chown(join(root, path), NOBODY, NOBODY);
  await chmod(join(root, path), mode);
  const args = { path, content: "new\n" };
  return (await toolCallInChild(join(import.meta.dir, "index.ts"), { root, user: "nobody", tool: "write_file", args })).result;
}

test("a file the process may not write is refused and keeps its content, as a non-root user", async () => {
  expect(await writeAsNobody("read-only.txt", 0o444)).toEqual({ content: "Error: Permission denied: read-only.txt", isError: true });
  expect(await readFile(join(root, "read-only.txt"), "utf8")).toBe("old\n");
  expect((await stat(join(root, "read-only.txt"))).mode & 0o777).toBe(0o444);
});

test("the same non-root user may write a file it may write (the refusal above is the permission, not the setup)", async () => {
  expect(await writeAsNobody("writable.txt", 0o644)).toEqual({ content: "Wrote 4 bytes to writable.txt", isError: false });
  expect(await readFile(join(root, "writable.txt"), "utf8")).toBe("new\n");
});
