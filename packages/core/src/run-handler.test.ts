import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { defineTool, silentLogger, type ToolContext, type ToolResult } from "./contract.ts";
import { runHandler } from "./run-handler.ts";
import { Workspace } from "./workspace.ts";

let root: string;
let ctx: ToolContext;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "plugboard-run-handler-"));
  ctx = { workspace: await Workspace.open(root), signal: new AbortController().signal, callId: "c1", logger: silentLogger };
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A tool whose handler returns `value`, whatever its type says. */
function returning(value: unknown) {
  return defineTool({ name: "t", description: "returns what the test gives", parameters: Type.Object({}), handler: async () => value as ToolResult });
}

describe("runHandler: what a handler returns", () => {
  test.each([
    ["done", "a string"],
    [undefined, "undefined"],
    [null, "null"],
    [42, "a number"],
    [["done"], "an array"],
    [{ text: "done" }, "an object whose content is not a string"],
    [{ content: "done" }, "an object whose isError is not a boolean"],
    [{ content: "done", isError: false, structuredContent: "x" }, "an object whose structuredContent is not an object"],
  ])("%p is a bug, said as one: it returned %s", async (value, described) => {
    await expect(runHandler(returning(value), {}, ctx)).rejects.toThrow(
      new TypeError(`it returned ${described}, not a result { content: string, isError: boolean }: return textResult(TEXT) or errorResult(MESSAGE)`),
    );
  });

  test("a result, with or without structuredContent, is returned as it is", async () => {
    const plain = { content: "done", isError: false };
    const structured = { content: "2 files", isError: false, structuredContent: { files: 2 } };
    expect(await runHandler(returning(plain), {}, ctx)).toEqual(plain);
    expect(await runHandler(returning(structured), {}, ctx)).toEqual(structured);
  });

  test("the attack: a getter that shows the check a string and the app something else is read once", async () => {
    let reads = 0;
    const shifty = {
      get content() {
        reads += 1;
        return reads === 1 ? "done" : { not: "a string" };
      },
      isError: false,
    };
    const result = await runHandler(returning(shifty), {}, ctx);
    expect(result).toEqual({ content: "done", isError: false });
    expect(typeof result.content).toBe("string");
  });
});
