import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginRuntime } from "@plugboard/testing";
import plugin from "./index.ts";

let root = "";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "word-count-"));
  await writeFile(join(root, "notes.txt"), "one two\nthree\n");
  await writeFile(join(root, "big.txt"), "x".repeat(2000));
  await mkdir(join(root, "folder"));
});

afterAll(() => rm(root, { recursive: true, force: true }));

/** Calls the tool the way the model does (by name, with JSON arguments), built as an app builds it. */
async function call(args: Record<string, unknown>) {
  const { tool } = await pluginRuntime(plugin, { root, options: { maxFileBytes: 1024 } });
  return tool("word_count")(args);
}

test("counts the lines, words and characters of a file", async () => {
  expect(await call({ path: "notes.txt" })).toEqual({ content: "notes.txt: 2 lines, 3 words, 14 characters", isError: false });
});

test.each([
  ["missing.txt", "Error: File not found: missing.txt"],
  ["folder", "Error: folder is a directory, not a file"],
  ["big.txt", "Error: big.txt is 2000 bytes, over the limit of 1024 bytes"],
  ["../outside.txt", "Error: Path escapes workspace: ../outside.txt"],
])("%s gives an error result", async (path, content) => {
  expect(await call({ path })).toEqual({ content, isError: true });
});

test("arguments that do not match the schema never reach the handler", async () => {
  const result = await call({ file: "notes.txt" });
  expect(result.isError).toBe(true);
  expect(result.content).toStartWith("Error: Invalid arguments for word_count");
});
