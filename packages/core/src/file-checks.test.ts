import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolError } from "./errors.ts";
import { decodeText, fileErrors, fileSystemError, statFile } from "./file-checks.ts";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-file-checks-"));
  await writeFile(join(dir, "a.txt"), "hello");
  await mkdir(join(dir, "folder"));
  const mkfifo = Bun.spawnSync(["mkfifo", join(dir, "pipe")]);
  if (mkfifo.exitCode !== 0) throw new Error(`mkfifo failed: ${mkfifo.stderr.toString()}`);
});

afterAll(() => rm(dir, { recursive: true, force: true }));

describe("statFile", () => {
  test("returns the stats of a regular file", async () => {
    expect((await statFile(join(dir, "a.txt"), "a.txt"))?.size).toBe(5);
  });

  test("returns undefined when nothing is there", async () => {
    expect(await statFile(join(dir, "missing.txt"), "missing.txt")).toBeUndefined();
  });

  test("refuses a folder and a FIFO", async () => {
    await expect(statFile(join(dir, "folder"), "folder")).rejects.toThrow(
      new ToolError("folder is a directory, not a file"),
    );
    await expect(statFile(join(dir, "pipe"), "pipe")).rejects.toThrow(new ToolError("pipe is not a regular file"));
  });

  test("names a file used as a folder", async () => {
    await expect(statFile(join(dir, "a.txt/b.txt"), "a.txt/b.txt")).rejects.toThrow(
      new ToolError("A parent of a.txt/b.txt is a file, not a folder"),
    );
  });
});

describe("decodeText", () => {
  test("decodes UTF-8 and keeps a byte order mark", () => {
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0xc3, 0xa9]), "x")).toBe("\ufeffhé");
  });

  test("refuses NUL bytes and invalid UTF-8 as binary", () => {
    expect(() => decodeText(new Uint8Array([0x61, 0x00, 0x62]), "x.bin")).toThrow(fileErrors.binary("x.bin"));
    expect(() => decodeText(new Uint8Array([0x61, 0xff, 0x62]), "x.bin")).toThrow(
      new ToolError("x.bin is a binary file, not UTF-8 text"),
    );
  });
});

describe("fileSystemError", () => {
  const errno = (code: string) => Object.assign(new Error(`${code}: failed`), { code });

  test.each([
    ["EACCES", "Permission denied: f.txt"],
    ["EROFS", "Read-only file system: f.txt"],
    ["ENOSPC", "No space left on the device to write f.txt"],
    ["ENOENT", "File not found: f.txt"],
    ["ENAMETOOLONG", "Path too long: f.txt"],
    ["EMFILE", "Too many open files to open f.txt; try again"],
    ["ELOOP", "Too many levels of symbolic links in f.txt"],
    ["EXDEV", "Cannot access f.txt (EXDEV)"],
  ])("turns %s into a ToolError", (code, message) => {
    const error = fileSystemError(errno(code), "f.txt");
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toBe(message);
  });

  test("returns errors that are not the operating system's unchanged", () => {
    const bug = new TypeError("not a file system problem");
    expect(fileSystemError(bug, "f.txt")).toBe(bug);
    const argument = errno("ERR_INVALID_ARG_TYPE");
    expect(fileSystemError(argument, "f.txt")).toBe(argument);
  });

  test("cuts a very long path in the message and says its length", () => {
    const long = "d/".repeat(3000);
    const message = (fileSystemError(errno("ENAMETOOLONG"), long) as ToolError).message;
    expect(message).toBe(`Path too long: ${long.slice(0, 200)}… (6000 characters)`);
  });
});
