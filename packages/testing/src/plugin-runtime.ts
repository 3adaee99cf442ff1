/**
 * A plugin's tools behind core's runtime, in the caller's process, as an app would run them:
 * options with the schema's defaults filled in and checked, each call's arguments sent as the
 * JSON text a model would send.
 */
import { type AnyToolDefinition, type Logger, type Plugin, type ResultsLimits, silentLogger, type ToolResult, Workspace, ToolRegistry } from "@plugboard/core";
import { type ExecuteOptions, ToolRuntime } from "@plugboard/runtime";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

/** Where the tools work (a `root` folder to open, or an open `workspace`) and with which options. */
export type PluginRuntimeOptions<S extends TSchema> = (
  | { readonly root: string; readonly workspace?: undefined }
  | { readonly workspace: Workspace; readonly root?: undefined }
) & {
  /** The plugin's options, as a config entry would give them (any with a default may be left out). @default {} */
  readonly options?: Partial<Static<S>>;
  /** Given to the plugin and its tools. @default silentLogger */
  readonly logger?: Logger;
  /** Save results over `maxBytes` to `.plugboard/results/` in the workspace, as an app does. @default none: results reach the caller whole */
  readonly results?: ResultsLimits;
};

/** The plugin's tools, ready to call. */
export interface PluginRuntime {
  /** The tool definitions the plugin returned, in order (their `parameters` are what the model sees). */
  readonly tools: readonly AnyToolDefinition[];
  readonly runtime: ToolRuntime;
  readonly workspace: Workspace;
  /** Calls `tool` with `args` sent as JSON text; `{ signal }` aborts it. */
  call(tool: string, args: Readonly<Record<string, unknown>>, options?: ExecuteOptions): Promise<ToolResult>;
  /** `call` bound to one tool. */
  tool(name: string): (args: Readonly<Record<string, unknown>>, options?: ExecuteOptions) => Promise<ToolResult>;
}

/**
 * Builds `plugin`'s tools and a runtime for them. The options get the schema's defaults and
 * are checked, as the bootstrap does (TypeBox's `AssertError` when invalid), then given to
 * the plugin's `tools`.
 *
 * @example
 * const { call } = await pluginRuntime(plugin, { root, options: { maxBytes: 6 } });
 * expect(await call("write_file", { path: "a.txt", content: "hi" })).toEqual({ content: "Wrote 2 bytes to a.txt", isError: false });
 */
export async function pluginRuntime<S extends TSchema>(plugin: Plugin<S>, place: PluginRuntimeOptions<S>): Promise<PluginRuntime> {
  const workspace = place.workspace === undefined ? await Workspace.open(place.root) : place.workspace;
  const logger = place.logger ?? silentLogger;
  const options = Value.Parse(["Clone", "Default", "Assert"], plugin.options, place.options ?? {}) as Static<S>;
  const tools = plugin.tools(options, { workspace, logger });
  const runtime = new ToolRuntime(new ToolRegistry(tools), { workspace, logger, ...(place.results ? { results: place.results } : {}) });
  const call: PluginRuntime["call"] = (tool, args, execute) => runtime.execute(tool, JSON.stringify(args), execute);
  return { tools, runtime, workspace, call, tool: (name) => (args, execute) => call(name, args, execute) };
}
