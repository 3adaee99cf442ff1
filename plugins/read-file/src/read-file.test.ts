import { afterAll, describe, expect, test } from "bun:test";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ToolResult } from "@plugboard/core";
import { escapeFixture, escapePaths } from "@plugboard/test-helpers";
import { pluginRuntime } from "@plugboard/testing";
import plugin, { type Options } from "./index.ts";
import { CHUNK_BYTES } from "./line-window.ts";

const fixture = await escapeFixture("plugboard-read-file");
const { root, outside } = fixture;
await mkdir(join(root, "sub"));
afterAll(() => fixture.remove());

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `line ${i + 1}`).join("\n");

/** Writes `content` to `name` in the workspace. */
const file = (name: string, content: string | Uint8Array) => writeFile(join(root, name), content);

async function read(args: Record<string, unknown>, options: Partial<Options> = {}): Promise<ToolResult> {
  return (await pluginRuntime(plugin, { root, options })).call("read_file", args);
}

const ok = (content: string) => ({ content, isError: false });
const error = (message: string) => ({ content: `Error: ${message}`, isError: true });

describe("read_file: lines", () => {
  test("returns the lines as they are, without line numbers", async () => {
    await file("hello.txt", "one\ntwo\n  three\n");
    expect(await read({ path: "hello.txt" })).toEqual(ok("one\ntwo\n  three"));
    await file("no-final-newline.txt", "a\nb");
    expect(await read({ path: "no-final-newline.txt" })).toEqual(ok("a\nb"));
    await file("crlf.txt", "a\r\nb\r\n");
    expect(await read({ path: "crlf.txt" })).toEqual(ok("a\r\nb\r"));
  });

  test("returns limit lines from a 1-based offset and counts the lines left", async () => {
    await file("ten.txt", `${numbered(10)}\n`);
    expect(await read({ path: "ten.txt", offset: 3, limit: 2 })).toEqual(ok("line 3\nline 4\n... (6 more lines)"));
    expect(await read({ path: "ten.txt", limit: 9 })).toEqual(ok(`${numbered(9)}\n... (1 more lines)`));
    expect(await read({ path: "ten.txt", offset: 10 })).toEqual(ok("line 10"));
    expect(await read({ path: "ten.txt", offset: 9, limit: 50 })).toEqual(ok("line 9\nline 10"));
  });

  test("an offset past the end says how many lines the file has", async () => {
    await file("three.txt", "a\nb\nc\n");
    expect(await read({ path: "three.txt", offset: 4 })).toEqual(
      error("Offset 4 is past the end of three.txt, which has 3 lines"),
    );
    await file("one.txt", "only");
    expect(await read({ path: "one.txt", offset: 2, limit: 1 })).toEqual(
      error("Offset 2 is past the end of one.txt, which has 1 line"),
    );
  });

  test("says (empty file) for an empty file, whatever the offset", async () => {
    await file("empty.txt", "");
    expect(await read({ path: "empty.txt" })).toEqual(ok("(empty file)"));
    expect(await read({ path: "empty.txt", offset: 5, limit: 1 })).toEqual(ok("(empty file)"));
  });

  test("reads near the end of a file of 250,000 lines", async () => {
    await file("long.txt", `${numbered(250_000)}\n`);
    expect(await read({ path: "long.txt", offset: 249_998, limit: 2 })).toEqual(
      ok("line 249998\nline 249999\n... (1 more lines)"),
    );
    expect(await read({ path: "long.txt", offset: 250_001, limit: 2 })).toEqual(
      error("Offset 250001 is past the end of long.txt, which has 250000 lines"),
    );
  });

  test("decodes characters split across read chunks", async () => {
    // "é" starts on the last byte of the first chunk and ends on the first byte of the second.
    const line = `${"a".repeat(CHUNK_BYTES - 1)}é€😀 end`;
    await file("split.txt", `${line}\nnext\n`);
    const options = { maxLineChars: CHUNK_BYTES + 100, maxOutputChars: CHUNK_BYTES + 200 };
    expect(await read({ path: "split.txt", limit: 1 }, options)).toEqual(ok(`${line}\n... (1 more lines)`));
  });
});

describe("read_file: limits", () => {
  test("cuts a long line and counts the bytes cut", async () => {
    await file("wide.txt", `abcdefghijklmnop\n${"é".repeat(13)}\n123456789😀xyz\nshort\n`);
    expect(await read({ path: "wide.txt" }, { maxLineChars: 10 })).toEqual(
      ok(
        [
          "abcdefghij ... (6 more bytes in this line)",
          `${"é".repeat(10)} ... (6 more bytes in this line)`,
          "123456789 ... (7 more bytes in this line)",
          "short",
        ].join("\n"),
      ),
    );
  });

  test("a huge single line costs only the characters shown", async () => {
    await file("one-line.txt", "x".repeat(3_000_000));
    expect(await read({ path: "one-line.txt", limit: 1 }, { maxLineChars: 5 })).toEqual(
      ok("xxxxx ... (2999995 more bytes in this line)"),
    );
  });

  test("stops at the output cap and says where to continue", async () => {
    await file("capped.txt", `${numbered(10)}\n`);
    expect(await read({ path: "capped.txt" }, { maxLineChars: 10, maxOutputChars: 20 })).toEqual(
      ok(`${numbered(3)}\n... (7 more lines; output capped at 20 characters, continue with offset 4)`),
    );
  });

  test("refuses a file over maxFileBytes without a limit, and reads it in parts", async () => {
    await file("big.txt", `${numbered(5)}\n`);
    expect(await read({ path: "big.txt" }, { maxFileBytes: 10 })).toEqual(
      error("big.txt is 35 bytes, over the limit of 10 bytes; read it in parts with offset and limit"),
    );
    expect(await read({ path: "big.txt", offset: 2, limit: 2 }, { maxFileBytes: 10 })).toEqual(
      ok("line 2\nline 3\n... (2 more lines)"),
    );
  });

  test("refuses offset and limit below 1", async () => {
    const zero = await read({ path: "hello.txt", offset: 0 });
    expect(zero.content).toStartWith("Error: Invalid arguments for read_file: offset:");
    const none = await read({ path: "hello.txt", limit: 0 });
    expect(none.content).toStartWith("Error: Invalid arguments for read_file: limit:");
  });
});

describe("read_file: failures", () => {
  test("a missing file, a folder and a FIFO", async () => {
    expect(await read({ path: "missing.txt" })).toEqual(error("File not found: missing.txt"));
    expect(await read({ path: "sub" })).toEqual(error("sub is a directory, not a file"));
    expect(Bun.spawnSync(["mkfifo", join(root, "pipe")]).exitCode).toBe(0);
    expect(await read({ path: "pipe" })).toEqual(error("pipe is not a regular file"));
  });

  test("binary files: a NUL byte near the start, or invalid UTF-8 in the lines returned", async () => {
    await file("nul.bin", new Uint8Array([0x61, 0x0a, 0x00, 0x62]));
    expect(await read({ path: "nul.bin", limit: 1 })).toEqual(error("nul.bin is a binary file, not UTF-8 text"));
    await file("latin1.txt", new Uint8Array([0x61, 0x0a, 0x63, 0x61, 0x66, 0xe9, 0x0a]));
    expect(await read({ path: "latin1.txt" })).toEqual(error("latin1.txt is a binary file, not UTF-8 text"));
    expect(await read({ path: "latin1.txt", limit: 1 })).toEqual(ok("a\n... (1 more lines)"));
    await file("late-nul.txt", `${"a\n".repeat(5000)}b\0c\n`);
    expect(await read({ path: "late-nul.txt", offset: 5001 })).toEqual(
      error("late-nul.txt is a binary file, not UTF-8 text"),
    );
  });

  test("refuses paths and symlinks that leave the workspace", async () => {
    for (const [, path] of escapePaths()) {
      expect(await read({ path })).toEqual(error(`Path escapes workspace: ${path}`));
    }
    const absolute = join(outside, "secret.txt");
    expect(await read({ path: absolute })).toEqual(error(`Path escapes workspace: ${absolute}`));
  });

  test("follows a symlink that stays inside, naming the real file", async () => {
    await file("target.txt", "inside\n");
    await symlink("target.txt", join(root, "inner-link.txt"));
    expect(await read({ path: "inner-link.txt" })).toEqual(ok("inside"));
    expect(await read({ path: "inner-link.txt", offset: 3 })).toEqual(
      error("Offset 3 is past the end of target.txt, which has 1 line"),
    );
  });
});
