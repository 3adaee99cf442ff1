import { afterEach, expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "../test/temp-config.ts";
import { readDotEnv } from "./env.ts";

afterEach(removeTempDirs);

test("KEY=VALUE lines, comments, export, quotes and escapes; process.env is untouched", async () => {
  const text = [
    "# a comment",
    "",
    "PLAIN=value with spaces  ",
    "  INDENTED = spaced ",
    "export EXPORTED=yes",
    'DOUBLE="a # not a comment\\nnext line"',
    "SINGLE='kept \\n as is' # trailing comment",
    "INLINE=value # comment",
    "EMPTY=",
    "EQUALS=a=b",
    "PLUGBOARD_ENV_TEST_ONLY=1",
  ].join("\r\n");
  const path = join(await tempDir(), ".env");
  await writeFile(path, text);
  expect(await readDotEnv(path)).toEqual({
    PLAIN: "value with spaces",
    INDENTED: "spaced",
    EXPORTED: "yes",
    DOUBLE: "a # not a comment\nnext line",
    SINGLE: "kept \\n as is",
    INLINE: "value",
    EMPTY: "",
    EQUALS: "a=b",
    PLUGBOARD_ENV_TEST_ONLY: "1",
  });
  expect(process.env.PLUGBOARD_ENV_TEST_ONLY).toBeUndefined();
});

test("a missing .env file is an empty one", async () => {
  expect(await readDotEnv(join(await tempDir(), ".env"))).toEqual({});
});
