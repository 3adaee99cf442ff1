import { afterAll, describe, expect, test } from "bun:test";
import { chmod, lstat, mkdir, readFile, readdir, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { escapeFixture, escapePaths } from "@plugboard/test-helpers";
import { pluginRuntime } from "@plugboard/testing";
import plugin, { type Options } from "./index.ts";

const fixture = await escapeFixture("plugboard-write-file");
const { root, outside } = fixture;
await mkdir(join(root, "folder"));
afterAll(() => fixture.remove());

const writer = async (options: Partial<Options> = {}) => (await pluginRuntime(plugin, { root, options })).tool("write_file");

const text = (path: string) => readFile(join(root, path), "utf8");

describe("write_file", () => {
  test("creates a file and its missing parent folders", async () => {
    const write = await writer();
    expect(await write({ path: "new/deep/a.txt", content: "hello\n" })).toEqual({
      content: "Wrote 6 bytes to new/deep/a.txt",
      isError: false,
    });
    expect(await text("new/deep/a.txt")).toBe("hello\n");
  });

  test("counts UTF-8 bytes, not characters", async () => {
    const write = await writer();
    expect((await write({ path: "accent.txt", content: "héllo" })).content).toBe("Wrote 6 bytes to accent.txt");
    expect((await write({ path: "emoji.txt", content: "😀" })).content).toBe("Wrote 4 bytes to emoji.txt");
    expect((await stat(join(root, "emoji.txt"))).size).toBe(4);
  });

  test("writes an empty file", async () => {
    const write = await writer();
    expect((await write({ path: "empty.txt", content: "" })).content).toBe("Wrote 0 bytes to empty.txt");
    expect(await text("empty.txt")).toBe("");
  });

  test("overwrites an existing file and leaves no temp file behind", async () => {
    const write = await writer();
    await writeFile(join(root, "folder/over.txt"), "a much longer old content");
    expect((await write({ path: "folder/over.txt", content: "new" })).content).toBe("Wrote 3 bytes to folder/over.txt");
    expect(await text("folder/over.txt")).toBe("new");
    expect((await readdir(join(root, "folder"))).filter((name) => name.endsWith(".tmp"))).toEqual([]);
  });

  test.each([
    ["0600", 0o600],
    ["0755", 0o755],
  ])("keeps the mode %s of an existing file", async (_, mode) => {
    const write = await writer();
    const path = `mode-${mode.toString(8)}.sh`;
    await writeFile(join(root, path), "old");
    await chmod(join(root, path), mode);
    await write({ path, content: "new" });
    expect((await stat(join(root, path))).mode & 0o777).toBe(mode);
  });

  test("shows the path relative to the workspace whatever form the model used", async () => {
    const write = await writer();
    expect((await write({ path: join(root, "abs.txt"), content: "x" })).content).toBe("Wrote 1 bytes to abs.txt");
    expect((await write({ path: "./folder/../dots.txt", content: "x" })).content).toBe("Wrote 1 bytes to dots.txt");
  });

  test("writes through a symlink inside the workspace to its target and keeps the link", async () => {
    const write = await writer();
    await writeFile(join(root, "folder/target.txt"), "before");
    await symlink("folder/target.txt", join(root, "inside-link"));
    expect((await write({ path: "inside-link", content: "after" })).content).toBe("Wrote 5 bytes to folder/target.txt");
    expect(await text("folder/target.txt")).toBe("after");
    expect((await lstat(join(root, "inside-link"))).isSymbolicLink()).toBe(true);
  });

  test("accepts content exactly at maxBytes and refuses one byte more", async () => {
    const write = await writer({ maxBytes: 6 });
    expect((await write({ path: "cap.txt", content: "héllo" })).content).toBe("Wrote 6 bytes to cap.txt");
    expect(await write({ path: "cap.txt", content: "héllo!" })).toEqual({
      content: "Error: Content is 7 bytes, over the limit of 6 bytes",
      isError: true,
    });
    expect(await text("cap.txt")).toBe("héllo");
  });

  test("refuses a directory target", async () => {
    const write = await writer();
    expect((await write({ path: "folder", content: "x" })).content).toBe("Error: folder is a directory, not a file");
    expect((await write({ path: ".", content: "x" })).content).toBe("Error: . is a directory, not a file");
  });

  test("refuses a path below a file", async () => {
    const write = await writer();
    await writeFile(join(root, "plain.txt"), "plain");
    expect((await write({ path: "plain.txt/child.txt", content: "x" })).content).toBe(
      "Error: A parent of plain.txt/child.txt is a file, not a folder",
    );
    expect(await text("plain.txt")).toBe("plain");
  });

  test("refuses a FIFO", async () => {
    const write = await writer();
    expect(Bun.spawnSync(["mkfifo", join(root, "pipe")]).exitCode).toBe(0);
    expect((await write({ path: "pipe", content: "x" })).content).toBe("Error: pipe is not a regular file");
  });
});

describe("write_file refuses paths that leave the workspace", () => {
  test.each([...escapePaths("planted.txt"), ["an absolute path elsewhere", "/tmp/plugboard-planted.txt"]])("%s", async (_, path) => {
    const write = await writer();
    expect(await write({ path, content: "planted" })).toEqual({
      content: `Error: Path escapes workspace: ${path}`,
      isError: true,
    });
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("secret");
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    expect(await Bun.file("/tmp/plugboard-planted.txt").exists()).toBe(false);
  });
});
