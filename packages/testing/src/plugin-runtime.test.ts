import { expect, test } from "bun:test";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { definePlugin, defineTool, textResult, ToolError, Workspace } from "@plugboard/core";
import { Type } from "@sinclair/typebox";
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
  const { call, runtime, tools, workspace } = await pluginRuntime(plugin, { root: fixture.root, options: { times: 2 } });
  expect(workspace.root).toBe(fixture.root);
  expect(tools.map((tool) => tool.name)).toEqual(["greet"]);
  expect(runtime.registry.names()).toEqual(["greet"]);
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
