import { expect, test } from "bun:test";
import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { definePlugin, defineTool, silentLogger, textResult, ToolError, Workspace } from "@plugboard/core";
import { Type } from "@sinclair/typebox";
import { callTool } from "./contract-call.ts";
import { pluginRuntime } from "./plugin-runtime.ts";

/** An empty temp folder for a workspace, removed when its `await using` block ends. */
async function tempRoot() {
  const root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-plugin-runtime-")));
  return { root, [Symbol.asyncDispose]: () => rm(root, { recursive: true, force: true }) };
}

/** Reports what it was built with and what each call receives. */
const plugin = definePlugin({
  options: Type.Object({ greeting: Type.Optional(Type.String({ default: "Hello" })), times: Type.Optional(Type.Integer({ minimum: 1 })) }),
  tools: (options, { workspace }) => [
    defineTool({
      name: "greet",
      description: "Greet someone.",
      parameters: Type.Object({ name: Type.String() }),
      handler: async ({ name }, ctx) => {
        if (ctx.signal.aborted) throw new ToolError("aborted");
        return textResult(`${options.greeting} ${name} in ${workspace.root}; options ${JSON.stringify(options)}`);
      },
    }),
  ],
});

test("builds the tools with the schema's defaults and calls them with JSON arguments", async () => {
  await using fixture = await tempRoot();
  const { call, registry, tools, workspace } = await pluginRuntime(plugin, { root: fixture.root, options: { times: 2 } });
  expect(workspace.root).toBe(fixture.root);
  expect(tools.map((tool) => tool.name)).toEqual(["greet"]);
  expect(registry.names()).toEqual(["greet"]);
  expect(await call("greet", { name: "Ada" })).toEqual({
    content: `Hello Ada in ${fixture.root}; options {"times":2,"greeting":"Hello"}`,
    isError: false,
  });
  expect((await call("greet", { name: 7 })).content).toStartWith("Error: Invalid arguments for greet: name:");
  expect(await call("greet", { name: "Ada" }, { signal: AbortSignal.abort() })).toEqual({ content: "Error: aborted", isError: true });
});

test("tool(name) is call bound to one tool", async () => {
  await using fixture = await tempRoot();
  const greet = (await pluginRuntime(plugin, { root: fixture.root })).tool("greet");
  expect((await greet({ name: "Cy" })).content).toStartWith("Hello Cy in");
  expect(await greet({ name: "Cy" }, { signal: AbortSignal.abort() })).toEqual({ content: "Error: aborted", isError: true });
});

test("takes an open workspace, and refuses options the schema refuses", async () => {
  await using fixture = await tempRoot();
  const workspace = await Workspace.open(fixture.root);
  const built = await pluginRuntime(plugin, { workspace, options: { greeting: "Hi" } });
  expect(built.workspace).toBe(workspace);
  expect((await built.call("greet", { name: "Bo" })).content).toStartWith("Hi Bo in");
  await expect(pluginRuntime(plugin, { workspace, options: { times: 0 } })).rejects.toThrow("Expected integer to be greater or equal to 1");
});

/** A tool with a bug, and one whose result is longer than a results limit. */
const rough = definePlugin({
  options: Type.Object({}),
  tools: () => [
    defineTool({ name: "crash", description: "Crash.", parameters: Type.Object({}), handler: async () => Promise.reject(new TypeError("a bug")) }),
    defineTool({ name: "long", description: "Long.", parameters: Type.Object({}), handler: async () => textResult("x".repeat(500)) }),
  ],
});

test("text that is not a JSON object, or an unknown tool, is an Error: result; a handler's bug rejects with a PluginError naming the tool", async () => {
  await using fixture = await tempRoot();
  const { call, registry, workspace } = await pluginRuntime(rough, { root: fixture.root });
  expect(await call("nope", {})).toEqual({ content: "Error: Unknown tool: nope (available: crash, long)", isError: true });
  const ctx = { workspace, signal: new AbortController().signal, callId: "c", logger: silentLogger };
  expect((await callTool(registry, "long", "{nope", ctx)).content).toStartWith("Error: Invalid arguments: ");
  expect(await callTool(registry, "long", "[]", ctx)).toEqual({ content: "Error: Invalid arguments: expected a JSON object", isError: true });
  const thrown = await call("crash", {}).catch((error: unknown) => error);
  expect(thrown).toMatchObject({ name: "PluginError", message: "Tool crash failed in its handler: TypeError: a bug" });
});

test("with results limits, a result over maxBytes is saved whole and the caller gets its head and tail", async () => {
  await using fixture = await tempRoot();
  const { call } = await pluginRuntime(rough, { root: fixture.root, results: { maxBytes: 200, maxFileBytes: 10_000 } });
  const { content } = await call("long", {}, { callId: "call_7" });
  expect(Buffer.byteLength(content)).toBeLessThanOrEqual(200);
  expect(content).toContain("the whole result is in .plugboard/results/call_7.txt");
  expect(await readFile(join(fixture.root, ".plugboard/results/call_7.txt"), "utf8")).toBe("x".repeat(500));
});
