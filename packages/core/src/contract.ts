/**
 * The tool contract: what a tool is, what it receives and what it returns. Plugins depend on
 * this module (through `@plugboard/core`) and on nothing else of ours.
 */
import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { ResultsFile } from "./results.ts";
import type { Workspace } from "./workspace.ts";

/**
 * The version of this contract. A plugin states the range it supports in its manifest
 * (`"contract": "^1.0.0"`). Breaking changes (a field removed or renamed in
 * `ToolDefinition`, `ToolContext`, `PluginContext` or `Plugin`, or a change in what the
 * runtime passes to a handler) bump the major version; additions bump the minor. The full
 * rules, and how a plugin picks its range: docs/plugins.md, "Versioning".
 */
export const CONTRACT_VERSION = "1.2.0";

/** What a tool returns. `content` is sent to the model as the `role: "tool"` message. */
export interface ToolResult {
  readonly content: string;
  /** True when `content` is an `Error: …` text. */
  readonly isError: boolean;
  /**
   * The result as data, for a tool that declares an `outputSchema` (checked against it, and
   * served over MCP as `structuredContent` beside `content`). Since contract 1.1.
   */
  readonly structuredContent?: Readonly<Record<string, unknown>>;
}

/** Structured log output of tools and plugins; the app decides where it goes. */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
}

/** A logger that drops everything: the default when an app passes none. */
export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
});

/**
 * What a handler receives besides its validated arguments. A plugin's options reach its
 * handlers by closure: `tools(options, ctx)` builds the definitions that use them.
 */
export interface ToolContext {
  readonly workspace: Workspace;
  /** Aborted when the user cancels the turn or the app shuts down. */
  readonly signal: AbortSignal;
  /** The model's tool call id this execution answers. */
  readonly callId: string;
  readonly logger: Logger;
  /**
   * Where this call's result goes when it is too large for the model, and the limits (since
   * contract 1.1). A tool that caps its own output writes what it cuts there as it streams
   * (`createResultsFile`), and says so with `resultCutLine`; absent when the app saves no
   * results. Whatever a tool returns over `maxBytes` is saved there by the runtime anyway.
   */
  readonly results?: ResultsFile;
  /**
   * Shows a piece of the call's output as it comes (a command's output while it runs) to a
   * person watching, for example under the app's spinner; never sent to the model, which gets
   * the result. Absent when no one watches: call it as `ctx.progress?.(text)`. Since contract 1.2.
   */
  readonly progress?: (text: string) => void;
}

/** A tool: immutable data the registry indexes and the runtime executes. */
export interface ToolDefinition<Params extends TObject = TObject> {
  /** The name the model sees (`read_file`): letters, digits, `_` and `-`, at most 64. */
  readonly name: string;
  /** One or two sentences for the model: what it does and when to use it. */
  readonly description: string;
  /** A TypeBox object schema: the JSON Schema sent to the model and the validator. */
  readonly parameters: Params;
  /**
   * A TypeBox object schema of the `structuredContent` every successful result carries
   * (`structuredResult`): checked after each call, a result that does not match is the
   * plugin's bug (a `PluginError` of phase `result`); served over MCP as `outputSchema`.
   * Since contract 1.1.
   */
  readonly outputSchema?: TObject;
  /** Declared as a method so any definition is assignable to `AnyToolDefinition`. */
  handler(args: Static<Params>, ctx: ToolContext): Promise<ToolResult>;
  /**
   * Whether its calls may run at the same time as other calls of the same model response
   * (results still go back in the order of the calls). Absent means `"serial"`.
   */
  readonly concurrency?: Concurrency<Params>;
}

/**
 * What a tool's calls may overlap with:
 * - `"serial"`: nothing; it runs after every earlier call and before every later one (a tool
 *   whose effects cannot be named, such as running a command).
 * - `"read-only"`: other read-only calls; it changes nothing.
 * - `{ writes(args, workspace) }`: calls that write elsewhere; it changes only what `writes`
 *   names (its absolute path), so two calls naming the same thing run in the order of the calls.
 *
 * A read-only call and a writing call never overlap: they run in the order of the calls.
 *
 * @example concurrency: { writes: ({ path }, workspace) => resolve(workspace.root, path) }
 */
export type Concurrency<Params extends TObject = TObject> =
  | "serial"
  | "read-only"
  | {
      /** Declared as a method so any definition is assignable to `AnyToolDefinition`. */
      writes(args: Static<Params>, workspace: Workspace): string;
    };

/** Any tool definition, whatever its parameter types. */
export type AnyToolDefinition = ToolDefinition;

/** The rule for tool names (the model providers' own): 1-64 letters, digits, `_` or `-`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Defines a tool; the handler's argument type is inferred from `parameters`.
 * The returned definition is frozen.
 *
 * @example
 * const echo = defineTool({
 *   name: "echo",
 *   description: "Repeat the text.",
 *   parameters: Type.Object({ text: Type.String() }),
 *   handler: async ({ text }) => textResult(text),
 * });
 */
export function defineTool<Params extends TObject>(definition: ToolDefinition<Params>): ToolDefinition<Params> {
  if (!TOOL_NAME_PATTERN.test(definition.name)) {
    throw new TypeError(
      `Invalid tool name ${JSON.stringify(definition.name)}: use 1-64 letters, digits, "_" or "-"`,
    );
  }
  if (definition.parameters.type !== "object") {
    throw new TypeError(`Tool ${definition.name}: parameters must be a Type.Object schema`);
  }
  if (definition.outputSchema !== undefined && definition.outputSchema.type !== "object") {
    throw new TypeError(`Tool ${definition.name}: outputSchema must be a Type.Object schema`);
  }
  const { concurrency } = definition;
  const known = concurrency === undefined || concurrency === "serial" || concurrency === "read-only";
  if (!known && typeof Reflect.get(Object(concurrency), "writes") !== "function") {
    throw new TypeError(`Tool ${definition.name}: concurrency must be "serial", "read-only" or { writes(args) }`);
  }
  return Object.freeze({ ...definition });
}

/** What a plugin's `tools` function receives. */
export interface PluginContext {
  readonly workspace: Workspace;
  readonly logger: Logger;
}

/** A plugin's entry export: options schema plus a function that returns its tools. */
export interface Plugin<OptionsSchema extends TSchema = TSchema> {
  /** TypeBox schema of the plugin's options; defaults in it are applied before `tools`. */
  readonly options: OptionsSchema;
  readonly tools: (
    options: Static<OptionsSchema>,
    ctx: PluginContext,
  ) => readonly AnyToolDefinition[];
}

/**
 * Defines a plugin; `tools` receives its options typed from the `options` schema.
 *
 * @example
 * export default definePlugin({
 *   options: Type.Object({ maxBytes: Type.Integer({ default: 1000 }) }),
 *   tools: (options) => [makeTool(options)],
 * });
 */
export function definePlugin<S extends TSchema>(plugin: Plugin<S>): Plugin<S> {
  return Object.freeze({ ...plugin });
}
