import { afterAll, describe, expect, test } from "bun:test";
import { chmod, lstat, mkdir, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { escapeFixture, escapePaths } from "@plugboard/test-helpers";
import { pluginRuntime } from "@plugboard/testing";
import plugin, { type Options } from "./index.ts";

const fixture = await escapeFixture("plugboard-edit-file");
const { root, outside } = fixture;
await mkdir(join(root, "folder"));
afterAll(() => fixture.remove());

const editor = async (options: Partial<Options> = {}) => (await pluginRuntime(plugin, { root, options })).tool("edit_file");

async function file(path: string, content: string | Uint8Array): Promise<string> {
  await writeFile(join(root, path), content);
  return path;
}

const text = (path: string) => readFile(join(root, path), "utf8");

describe("edit_file", () => {
  test("replaces a unique match", async () => {
    const edit = await editor();
    const path = await file("unique.ts", "const a = 1;\nconst b = 2;\n");
    expect(await edit({ path, old_text: "b = 2", new_text: "b = 3" })).toEqual({
      content: "Edited unique.ts (1 replacement)",
      isError: false,
    });
    expect(await text(path)).toBe("const a = 1;\nconst b = 3;\n");
  });

  test("edits the target of a symlink inside the workspace and keeps the link", async () => {
    const edit = await editor();
    await file("folder/target.txt", "before");
    await symlink("folder/target.txt", join(root, "inside-link"));
    expect((await edit({ path: "inside-link", old_text: "before", new_text: "after" })).content).toBe(
      "Edited folder/target.txt (1 replacement)",
    );
    expect(await text("inside-link")).toBe("after");
    expect((await lstat(join(root, "inside-link"))).isSymbolicLink()).toBe(true);
  });

  test("refuses several matches, saying how many, and changes nothing", async () => {
    const edit = await editor();
    const path = await file("many.txt", "x = 1\nx = 1\nx = 1\n");
    expect(await edit({ path, old_text: "x = 1", new_text: "x = 2" })).toEqual({
      content:
        "Error: old_text matches 3 places in many.txt; add surrounding lines to make it unique, or set replace_all to true",
      isError: true,
    });
    expect(await text(path)).toBe("x = 1\nx = 1\nx = 1\n");
  });

  test("replace_all replaces every match and counts them", async () => {
    const edit = await editor();
    const path = await file("all.txt", "x = 1\nx = 1\nx = 1\n");
    expect((await edit({ path, old_text: "x = 1", new_text: "y", replace_all: true })).content).toBe(
      "Edited all.txt (3 replacements)",
    );
    expect(await text(path)).toBe("y\ny\ny\n");
  });

  test("replace_all with a single match is fine", async () => {
    const edit = await editor();
    const path = await file("one.txt", "alpha beta");
    expect((await edit({ path, old_text: "beta", new_text: "gamma", replace_all: true })).content).toBe(
      "Edited one.txt (1 replacement)",
    );
  });

  test("says when old_text is not found, with a hint to read again", async () => {
    const edit = await editor();
    const path = await file("absent.txt", "hello world");
    expect(await edit({ path, old_text: "Hello", new_text: "Bye" })).toEqual({
      content: "Error: old_text not found in absent.txt; read the file again to see its current content",
      isError: true,
    });
  });

  test("matches text literally: no regular expressions, `$` patterns kept as written", async () => {
    const edit = await editor();
    const path = await file("literal.txt", "price: a.b (x+)\n");
    expect((await edit({ path, old_text: "a.b (x+)", new_text: "$& $1 $$" })).content).toBe(
      "Edited literal.txt (1 replacement)",
    );
    expect(await text(path)).toBe("price: $& $1 $$\n");
    expect((await edit({ path, old_text: "p.ice", new_text: "cost" })).content).toStartWith("Error: old_text not found");
  });

  test("can delete text and keeps a byte order mark and CRLF line ends", async () => {
    const edit = await editor();
    const path = await file("bom.txt", "\ufeffone\r\ntwo\r\nthree\r\n");
    expect((await edit({ path, old_text: "two\r\n", new_text: "" })).content).toBe("Edited bom.txt (1 replacement)");
    expect(await readFile(join(root, path))).toEqual(Buffer.from("\ufeffone\r\nthree\r\n"));
  });

  test("refuses old_text equal to new_text and an empty old_text", async () => {
    const edit = await editor();
    const path = await file("same.txt", "same");
    expect((await edit({ path, old_text: "same", new_text: "same" })).content).toBe(
      "Error: old_text and new_text are the same; nothing would change",
    );
    const empty = await edit({ path, old_text: "", new_text: "x" });
    expect(empty.isError).toBe(true);
    expect(empty.content).toStartWith("Error: Invalid arguments for edit_file: old_text:");
  });

  test.each([
    ["0600", 0o600],
    ["0755", 0o755],
  ])("keeps the mode %s of the file", async (_, mode) => {
    const edit = await editor();
    const path = await file(`mode-${mode.toString(8)}.sh`, "echo old\n");
    await chmod(join(root, path), mode);
    await edit({ path, old_text: "old", new_text: "new" });
    expect((await stat(join(root, path))).mode & 0o777).toBe(mode);
    expect(await text(path)).toBe("echo new\n");
  });

  test("refuses a missing file, a folder and a binary file", async () => {
    const edit = await editor();
    const args = { old_text: "a", new_text: "b" };
    expect((await edit({ path: "missing.txt", ...args })).content).toBe("Error: File not found: missing.txt");
    expect((await edit({ path: "folder", ...args })).content).toBe("Error: folder is a directory, not a file");
    const binary = await file("image.bin", new Uint8Array([0x61, 0x00, 0x62]));
    expect((await edit({ path: binary, ...args })).content).toBe("Error: image.bin is a binary file, not UTF-8 text");
    const latin1 = await file("latin1.txt", new Uint8Array([0x61, 0xe9, 0x62]));
    expect((await edit({ path: latin1, ...args })).content).toBe("Error: latin1.txt is a binary file, not UTF-8 text");
    expect(await readFile(join(root, latin1))).toEqual(Buffer.from([0x61, 0xe9, 0x62]));
  });

  test("refuses a file over maxFileBytes", async () => {
    const edit = await editor({ maxFileBytes: 10 });
    const path = await file("eleven.txt", "aaaaaaaaaab");
    expect((await edit({ path, old_text: "b", new_text: "c" })).content).toBe(
      "Error: eleven.txt is 11 bytes, over the limit of 10 bytes",
    );
  });

  test("edits a 100 MB file with the default limit", async () => {
    const edit = await editor();
    const size = 100 * 1024 * 1024;
    const big = Buffer.alloc(size, "line\n");
    big.write("MARKER", size / 2);
    const path = await file("big.txt", big);
    expect((await edit({ path, old_text: "MARKER", new_text: "CHANGED!" })).content).toBe(
      "Edited big.txt (1 replacement)",
    );
    const after = await readFile(join(root, path));
    expect(after.length).toBe(size + 2);
    expect(after.subarray(size / 2, size / 2 + 8).toString()).toBe("CHANGED!");
    expect(after.subarray(0, 10).toString()).toBe("line\nline\n");
  }, 30_000);
});

describe("edit_file refuses paths that leave the workspace", () => {
  test.each(escapePaths())("%s", async (_, path) => {
    const edit = await editor();
    expect(await edit({ path, old_text: "secret", new_text: "leaked" })).toEqual({
      content: `Error: Path escapes workspace: ${path}`,
      isError: true,
    });
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret");
  });

  test("an absolute path elsewhere", async () => {
    const edit = await editor();
    const path = join(outside, "secret.txt");
    expect((await edit({ path, old_text: "secret", new_text: "leaked" })).content).toBe(
      `Error: Path escapes workspace: ${path}`,
    );
    expect(await readFile(path, "utf8")).toBe("secret");
  });
});
