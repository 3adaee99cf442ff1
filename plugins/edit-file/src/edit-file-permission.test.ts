import { afterAll, expect, test } from "bun:test";
import { chmod, chown, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toolCallInChild } from "@plugboard/test-helpers";

// Root may write any file, so the rule is checked as `nobody`, in a child process that calls
// the tool through the runtime. The folder is nobody's: a rename over the file would succeed.
const NOBODY = 65534;
const root = await mkdtemp(join(tmpdir(), "plugboard-edit-file-ro-"));
await chmod(root, 0o755);
await chown(root, NOBODY, NOBODY);
afterAll(() => rm(root, { recursive: true, force: true }));

const editAsNobody = (path: string) =>
  toolCallInChild(join(import.meta.dir, "index.ts"), {
    root,
    user: "nobody",
    tool: "edit_file",
    args: { path, old_text: "old", new_text: "new" },
  });

async function nobodysFile(path: string, mode: number): Promise<string> {
  await writeFile(join(root, path), "old\n");
  await chown(join(root, path), NOBODY, NOBODY);
  await chmod(join(root, path), mode);
  return path;
}

test("a file the process may not write is refused and keeps its content, as a non-root user", async () => {
  const path = await nobodysFile("read-only.txt", 0o444);
  const { result } = await editAsNobody(path);
  expect(result).toEqual({ content: "Error: Permission denied: read-only.txt", isError: true });
  expect(await readFile(join(root, path), "utf8")).toBe("old\n");
  expect((await stat(join(root, path))).mode & 0o777).toBe(0o444);
});

test("the same non-root user may edit a file it may write (the refusal above is the permission, not the setup)", async () => {
  const path = await nobodysFile("writable.txt", 0o644);
  const { result } = await editAsNobody(path);
  expect(result).toEqual({ content: "Edited writable.txt (1 replacement)", isError: false });
  expect(await readFile(join(root, path), "utf8")).toBe("new\n");
});
