import { afterAll, expect, test } from "bun:test";
import { chmod, chown, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolCallInChild } from "@plugboard/testing";
import { WRITE_FILE } from "./write-file.ts";

// Root may write any file, so the rule is checked as `nobody`, in a child process that calls
// the tool through the runtime. The folder is nobody's: a rename over the file would succeed.
const NOBODY = 65534;
const root = await mkdtemp(join(tmpdir(), "plugboard-write-file-ro-"));
await chmod(root, 0o755);
await chown(root, NOBODY, NOBODY);
afterAll(() => rm(root, { recursive: true, force: true }));

test("a file the process may not write is refused and keeps its content, as a non-root user", async () => {
  const target = join(root, "read-only.txt");
  await writeFile(target, "old\n");
  await chown(target, NOBODY, NOBODY);
  await chmod(target, 0o444);
  const { result } = await toolCallInChild(join(import.meta.dir, "index.ts"), {
    root,
    user: "nobody",
    tool: WRITE_FILE,
    args: { path: "read-only.txt", content: "new\n" },
  });
  expect(result).toEqual({ content: "Error: Permission denied: read-only.txt", isError: true });
  expect(await readFile(target, "utf8")).toBe("old\n");
  expect((await stat(target)).mode & 0o777).toBe(0o444);
});

test("the same non-root user may write a file it owns (the refusal above is the permission, not the setup)", async () => {
  const target = join(root, "writable.txt");
  await writeFile(target, "old\n");
  await chown(target, NOBODY, NOBODY);
  const { result } = await toolCallInChild(join(import.meta.dir, "index.ts"), {
    root,
    user: "nobody",
    tool: WRITE_FILE,
    args: { path: "writable.txt", content: "new\n" },
  });
  expect(result).toEqual({ content: "Wrote 4 bytes to writable.txt", isError: false });
  expect(await readFile(target, "utf8")).toBe("new\n");
});
