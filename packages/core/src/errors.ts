/**
 * Every text the model sees on failure and every message a person sees is built here,
 * so wording stays consistent and tests can assert it in one place.
 */
import type { ToolResult } from "./contract.ts";

/** The prefix every error result carries, as the model sees it. */
export const ERROR_PREFIX = "Error: ";

/** An error result for the model: `Error: MESSAGE`. */
export function errorResult(message: string): ToolResult {
  return { content: `${ERROR_PREFIX}${message}`, isError: true };
}

/** A successful result. */
export function textResult(content: string): ToolResult {
  return { content, isError: false };
}

/**
 * Brands in the global symbol registry, so that `instanceof ToolError` and
 * `instanceof PlugboardError` hold across copies of core: a plugin installed with its own
 * copy throws errors of that copy's classes, and the app's runtime must still recognise them.
 */
const TOOL_ERROR = Symbol.for("@plugboard/core.ToolError");
const PLUGBOARD_ERROR = Symbol.for("@plugboard/core.PlugboardError");
const PLUGIN_OPTIONS_ERROR = Symbol.for("@plugboard/core.PluginOptionsError");

/** `instanceof` for a branded class: by brand for the class itself, by prototype for its subclasses. */
function branded(asked: object, base: object, value: unknown, brand: symbol): boolean {
  if (asked !== base) return Function.prototype[Symbol.hasInstance].call(asked, value);
  return typeof value === "object" && value !== null && Reflect.get(value, brand) === true;
}

/**
 * An expected failure that a handler (or a core helper such as `Workspace.resolve`) throws
 * and the runtime turns into an `Error: …` result. Anything else a handler throws is a
 * programming error and propagates unchanged. Recognised across copies of core.
 *
 * @example throw new ToolError(`File not found: ${path}`)
 */
export class ToolError extends Error {
  override readonly name = "ToolError";
  readonly [TOOL_ERROR] = true;

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass `instanceof` was asked about
    return branded(this, ToolError, value, TOOL_ERROR);
  }
}

/** Thrown by `Workspace.resolve` when a path would leave the root. */
export class PathEscapeError extends ToolError {
  constructor(readonly path: string) {
    super(`Path escapes workspace: ${path}`);
  }
}

export const toolErrors = {
  unknownTool: (name: string, available: readonly string[]) =>
    errorResult(
      `Unknown tool: ${name}${available.length > 0 ? ` (available: ${available.join(", ")})` : " (no tools are enabled)"}`,
    ),
  invalidJson: (detail: string) => errorResult(`Invalid arguments: ${detail}`),
  notAnObject: () => errorResult("Invalid arguments: expected a JSON object"),
  invalidArguments: (name: string, problems: readonly string[]) =>
    errorResult(`Invalid arguments for ${name}: ${problems.join("; ")}`),
  cancelled: () => errorResult("Cancelled before the tool finished"),
  deniedByPolicy: (rule: string) => errorResult(`Denied by policy: ${rule}`),
  deniedByUser: (reason: string | undefined) => errorResult(`Denied by the user${reason ? `: ${reason}` : ""}`),
  noOneToAsk: () =>
    errorResult("Denied: approval required and no one to ask (allow it in the config's policy, or run with --yes)"),
} as const;

/** A failing field: `path` is a JSON Pointer into the arguments (`/a/0/b`, `""` for the whole). */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * One `path: problem` text per failing field, the first problem of each path in the order
 * given: `a.0.b: expected string`, `(arguments): …` for the whole object. Every validator's
 * problems pass through here, so they read the same whichever validator found them.
 */
export function fieldProblems(problems: Iterable<FieldProblem>): string[] {
  const seen = new Map<string, string>();
  for (const { path, message } of problems) {
    const field = path === "" ? "(arguments)" : path.slice(1).replaceAll("/", ".");
    if (!seen.has(field)) seen.set(field, message);
  }
  return [...seen].map(([field, message]) => `${field}: ${message.charAt(0).toLowerCase()}${message.slice(1)}`);
}

/** Stable codes for failures a person must act on. */
export type PlugboardErrorCode =
  | "CONFIG_INVALID"
  | "CONFIG_NOT_FOUND"
  | "PLUGIN_NOT_FOUND"
  | "PLUGIN_MANIFEST"
  | "PLUGIN_VERSION"
  | "PLUGIN_CONTRACT"
  | "PLUGIN_PERMISSION"
  | "PLUGIN_TOOLS"
  | "PLUGIN_DUPLICATE_TOOL"
  | "PLUGIN_IMPORT"
  | "PLUGIN_OPTIONS"
  | "WORKSPACE_INVALID"
  | "MODEL_RESPONSE"
  | "MODEL_ENDPOINT"
  | "USAGE";

/**
 * A failure a person (not the model) must fix: a bad config, a broken plugin, an endpoint
 * that refuses. Its message is one readable paragraph that says what to change.
 * Recognised across copies of core.
 */
export class PlugboardError extends Error {
  override readonly name = "PlugboardError";
  readonly [PLUGBOARD_ERROR] = true;

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass `instanceof` was asked about
    return branded(this, PlugboardError, value, PLUGBOARD_ERROR);
  }

  constructor(
    readonly code: PlugboardErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The model endpoint answered something that is not a usable chat completion. */
export class ModelResponseError extends PlugboardError {
  constructor(message: string) {
    super("MODEL_RESPONSE", `Malformed model response: ${message}`);
  }
}

/**
 * Options a plugin refuses although its schema accepts them (limits that contradict each
 * other): thrown by its `tools` function, reported by the app as the config entry's invalid
 * options, naming the plugin. The message says what to change.
 *
 * @example throw new PluginOptionsError(`timeoutMs (${timeoutMs}) must not exceed maxTimeoutMs (${maxTimeoutMs}). Lower timeoutMs or raise maxTimeoutMs.`)
 */
export class PluginOptionsError extends Error {
  override readonly name = "PluginOptionsError";
  readonly [PLUGIN_OPTIONS_ERROR] = true;

  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass `instanceof` was asked about
    return branded(this, PluginOptionsError, value, PLUGIN_OPTIONS_ERROR);
  }
}
