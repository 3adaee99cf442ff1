import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginOptions, pluginRuntime } from "@plugboard/testing";
import plugin from "./index.ts";

// The tool's own cases, called as the model calls it, in a real temp folder: change them with the tool.
let root = "";

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "my-tool-"));
  await writeFile(join(root, "notes.txt"), "one two\nthree\n");
  await mkdir(join(root, "folder"));
});

afterAll(() => rm(root, { recursive: true, force: true }));

/** Calls my_tool the way the model does (by name, with JSON arguments), built as an app builds it with `options`. */
async function call(args: Record<string, unknown>, options: Record<string, unknown> = {}) {
  const { tool } = await pluginRuntime(plugin, { root, options });
  return tool("my_tool")(args);
}

test("my_tool reports the lines of a file", async () => {
  expect(await call({ path: "notes.txt" })).toEqual({ content: "notes.txt: 2 lines", isError: false });
});

test.each([
  ["missing.txt", "Error: File not found: missing.txt"],
  ["folder", "Error: folder is a directory, not a file"],
  ["../outside.txt", "Error: Path escapes workspace: ../outside.txt"],
])("my_tool on %s gives an error result", async (path, content) => {
  expect(await call({ path })).toEqual({ content, isError: true });
});

test("my_tool refuses a file over its size limit (the maxFileBytes option)", async () => {
  const { maxFileBytes } = pluginOptions(plugin);
  await writeFile(join(root, "big.txt"), "x".repeat(maxFileBytes + 1));
  expect(await call({ path: "big.txt" })).toEqual({
    content: `Error: big.txt is ${maxFileBytes + 1} bytes, over the limit of ${maxFileBytes} bytes`,
    isError: true,
  });
});

test("arguments that do not match the schema never reach the handler", async () => {
  const result = await call({ file: "notes.txt" });
  expect(result.isError).toBe(true);
  expect(result.content).toStartWith("Error: Invalid arguments for my_tool");
});
