import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import { PlugboardError } from "./errors.ts";
import { removeTempDirs, tempDir } from "../test/temp-app.ts";
import { parseDotEnv, readDotEnv } from "./env.ts";

afterEach(removeTempDirs);

test("KEY=VALUE lines, comments, export, quotes and escapes", () => {
  const text = [
    "# a comment",
    "",
    "PLAIN=value with spaces  ",
    "  INDENTED = spaced ",
    "export EXPORTED=yes",
    'DOUBLE="a # not a comment\\nnext line"',
    "SINGLE='kept \\n as is' # trailing comment",
    "INLINE=value # comment",
    "HASH=a#b",
    "EMPTY=",
    "EQUALS=a=b",
  ].join("\r\n");
  expect(parseDotEnv(text, ".env")).toEqual({
    PLAIN: "value with spaces",
    INDENTED: "spaced",
    EXPORTED: "yes",
    DOUBLE: "a # not a comment\nnext line",
    SINGLE: "kept \\n as is",
    INLINE: "value",
    HASH: "a#b",
    EMPTY: "",
    EQUALS: "a=b",
  });
});

test("a line that is not KEY=VALUE, or an unclosed quote, names the file and line", () => {
  for (const [text, line] of [
    ["A=1\nnot a setting", 2],
    ['A=1\nB=2\nC="unclosed', 3],
    ["1ABC=x", 1],
  ] as const) {
    let error: unknown;
    try {
      parseDotEnv(text, "/app/.env");
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(PlugboardError);
    expect((error as PlugboardError).message).toStartWith(`Invalid line ${line} in /app/.env: expected KEY=VALUE`);
  }
});

test("a missing .env file is an empty one", async () => {
  expect(await readDotEnv(join(await tempDir(), ".env"))).toEqual({});
});
