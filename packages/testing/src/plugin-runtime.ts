/**
 * A plugin's tools called as an app would call them, in the caller's process, through the
 * contract alone (core's registry, no app): options with the schema's defaults filled in and
 * checked, each call's arguments sent as the JSON text a model would send.
 */
import { type AnyToolDefinition, type Logger, type Plugin, type ResultsLimits, silentLogger, type ToolResult, ToolRegistry, Workspace } from "@plugboard/core";
import { capResult, resultsFileFor } from "@plugboard/core/internal";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { callTool } from "./contract-call.ts";

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

/** Per-call inputs of `call`. */
export interface CallOptions {
  /** The call id a handler sees (and its results file is named after). @default "direct" */
  readonly callId?: string;
  /** Aborts the call. */
  readonly signal?: AbortSignal;
}

/** The plugin's tools, ready to call. */
export interface PluginRuntime {
  /** The tool definitions the plugin returned, in order (their `parameters` are what the model sees). */
  readonly tools: readonly AnyToolDefinition[];
  /** Core's registry of those tools: what each call is checked and run through. */
  readonly registry: ToolRegistry;
  readonly workspace: Workspace;
  /** Calls `tool` with `args` sent as JSON text; `{ signal }` aborts it. */
  call(tool: string, args: Readonly<Record<string, unknown>>, options?: CallOptions): Promise<ToolResult>;
  /** `call` bound to one tool. */
  tool(name: string): (args: Readonly<Record<string, unknown>>, options?: CallOptions) => Promise<ToolResult>;
}

const NEVER = new AbortController().signal;

/**
 * The options `plugin`'s tools function receives for `given` (a config entry's `options`): the
 * schema's defaults filled in, then checked, as an app does; TypeBox's `AssertError` when they
 * are invalid (an unknown key too, when the schema is closed).
 *
 * @example expect(pluginOptions(plugin)).toEqual({ maxFileBytes: 1048576 });
 */
export function pluginOptions<S extends TSchema>(plugin: Plugin<S>, given: unknown = {}): Static<S> {
  return Value.Parse(["Clone", "Default", "Assert"], plugin.options, given) as Static<S>;
}

/**
 * Builds `plugin`'s tools and a registry for them. The options are `pluginOptions(plugin, options)`,
 * given to the plugin's `tools`. A handler's bug rejects the call with core's `PluginError`, as in an app.
 *
 * @example
 * const { call } = await pluginRuntime(plugin, { root, options: { maxBytes: 6 } });
 * expect(await call("write_file", { path: "a.txt", content: "hi" })).toEqual({ content: "Wrote 2 bytes to a.txt", isError: false });
 */
export async function pluginRuntime<S extends TSchema>(plugin: Plugin<S>, place: PluginRuntimeOptions<S>): Promise<PluginRuntime> {
  const workspace = place.workspace === undefined ? await Workspace.open(place.root) : place.workspace;
  const logger = place.logger ?? silentLogger;
  const tools = plugin.tools(pluginOptions(plugin, place.options), { workspace, logger });
  const registry = new ToolRegistry(tools);
  const call: PluginRuntime["call"] = async (tool, args, { callId = "direct", signal = NEVER } = {}) => {
    const results = place.results && resultsFileFor(workspace.root, callId, place.results);
    const result = await callTool(registry, tool, JSON.stringify(args), { workspace, signal, callId, logger, ...(results ? { results } : {}) });
    // What a tool returns over the limit is saved whole, and the caller gets its head and tail, as the model would.
    return results ? capResult(result, workspace.root, results) : result;
  };
  return { tools, registry, workspace, call, tool: (name) => (args, options) => call(name, args, options) };
}
