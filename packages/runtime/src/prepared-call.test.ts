import { beforeAll, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { Type } from "@sinclair/typebox";
import { defineTool, textResult, ToolRegistry, Workspace } from "@plugboard/core";
import { ToolRuntime } from "./runtime.ts";

const calls: unknown[] = [];
const readFile = defineTool({
  name: "read_file",
  description: "Read a file.",
  parameters: Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer({ minimum: 1 })) }),
  handler: async (args) => {
    calls.push(args);
    return textResult(`read ${args.path}`);
  },
});

let runtime: ToolRuntime;
beforeAll(async () => {
  runtime = new ToolRuntime(new ToolRegistry([readFile]), { workspace: await Workspace.open(tmpdir()) });
});

describe("a prepared call", () => {
  test("holds the tool, the arguments read (repaired) and validated once, and runs as it is", async () => {
    const prepared = runtime.prepare("Read-File", '{"path":"a.txt","limit":2,}');
    expect(prepared).toMatchObject({ ok: true, name: "Read-File", arguments: { path: "a.txt", limit: 2 }, repaired: true });
    expect(prepared.registered?.tool.name).toBe("read_file");
    expect(prepared.reading.notJson).toStartWith("JSON Parse error");
    calls.length = 0;
    expect(await runtime.execute(prepared, { callId: "c1" })).toEqual({ content: "read a.txt", isError: false });
    expect(calls).toEqual([{ path: "a.txt", limit: 2 }]);
  });

  test("a call that cannot run carries the error the model reads, and running it runs nothing", async () => {
    const cases = [
      ["nope", "{}", "Error: Unknown tool: nope (available: read_file)"],
      ["read_file", "{nope", "Error: Invalid arguments: JSON Parse error: Expected '}'"],
      ["read_file", "[]", "Error: Invalid arguments: expected a JSON object"],
      ["read_file", '{"path":1}', "Error: Invalid arguments for read_file: path: expected string"],
    ] as const;
    calls.length = 0;
    for (const [name, raw, error] of cases) {
      const prepared = runtime.prepare(name, raw);
      expect(prepared.ok).toBe(false);
      expect(await runtime.execute(prepared)).toEqual({ content: error, isError: true });
      expect(await runtime.execute(name, raw)).toEqual({ content: error, isError: true });
    }
    expect(calls).toEqual([]);
  });

  test("JSON as written has no complaint; a doubled encoding is JSON, read as its inner object", () => {
    expect(runtime.prepare("read_file", '{"path":"a.txt"}').reading).toEqual({ read: { value: { path: "a.txt" }, repaired: false } });
    const doubled = runtime.prepare("read_file", JSON.stringify('{"path":"a.txt"}'));
    expect(doubled).toMatchObject({ ok: true, arguments: { path: "a.txt" }, repaired: true });
    expect(doubled.reading.notJson).toBeUndefined();
  });
});
