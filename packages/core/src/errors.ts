/**
 * Every text the model sees on failure is built here, so wording stays consistent and tests
 * can assert it in one place; and the errors core throws for a person to act on.
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
 * A successful result of a tool with an `outputSchema`: `content` for the model, `data`
 * matching the schema (served over MCP as `structuredContent`).
 *
 * @example return structuredResult(paths.join("\n"), { matches: paths, more: 0 });
 */
export function structuredResult(content: string, data: Readonly<Record<string, unknown>>): ToolResult {
  return { content, isError: false, structuredContent: data };
}

/**
 * Brands in the global symbol registry, so that `instanceof ToolError` and
 * `instanceof PluginOptionsError` hold across copies of core: a plugin installed with its own
 * copy throws errors of that copy's classes, and the app's runtime must still recognise them.
 */
const TOOL_ERROR = Symbol.for("@plugboard/core.ToolError");
const PLUGIN_OPTIONS_ERROR = Symbol.for("@plugboard/core.PluginOptionsError");

/** `instanceof` for a branded class: by brand for the class itself, by prototype for its subclasses. */
function branded(asked: object, base: object, value: unknown, brand: symbol): boolean {
  if (asked !== base) return Function.prototype[Symbol.hasInstance].call(asked, value);
  return typeof value === "object" && value !== null && Reflect.get(value, brand) === true;
}

/**
 * An expected failure that a handler (or a core helper such as `Workspace.resolve`) throws
 * and the runtime turns into an `Error: …` result. Anything else a handler throws is a
 * programming error and propagates as a `PluginError`. Recognised across copies of core.
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
  cutOff: () =>
    errorResult(
      'Invalid arguments: the call was cut off at your output limit (finish_reason "length"); make it again, shorter (for example, write a long file in several parts)',
    ),
  notAnObject: () => errorResult("Invalid arguments: expected a JSON object"),
  invalidArguments: (name: string, problems: readonly string[]) =>
    errorResult(`Invalid arguments for ${name}: ${problems.join("; ")}`),
  cancelled: () => errorResult("Cancelled before the tool finished"),
  deniedByPolicy: (rule: string) => errorResult(`Denied by policy: ${rule}`),
  deniedByUser: (reason: string | undefined) => errorResult(`Denied by the user${reason ? `: ${reason}` : ""}`),
  deniedByHook: (hook: string, reason: string | undefined) => errorResult(`Denied by ${hook}${reason ? `: ${reason}` : ""}`),
  hookFailed: (hook: string, problem: string) => errorResult(`Denied: ${hook} failed: ${problem}`),
  hookArguments: (name: string, hook: string, problems: readonly string[]) =>
    errorResult(`Invalid arguments for ${name} (as ${hook} rewrote them): ${problems.join("; ")}`),
  afterHookFailed: (hook: string, problem: string) =>
    errorResult(`Denied: ${hook} failed: ${problem}; the call ran, its result is withheld`),
  redactedPlaceholder: (name: string) =>
    errorResult(
      `${name} was not run: its arguments carry "[redacted: …]", which stands for a secret you were not shown; written to a file it would replace the real secret. Leave the text around that secret as it is (edit the lines beside it), or ask the user to change it`,
    ),
  noOneToAsk: () =>
    errorResult("Denied: approval required and no one to ask (allow it in the config's policy, or run with --yes)"),
  taintedNoOneToAsk: (tool: string, by: string) =>
    errorResult(
      `Denied: untrusted content from ${by} entered this conversation and ${tool} can send data out, so a person must approve this call, and no one can be asked (not even --yes answers for them); finish without it, or ask the user to run it at a terminal`,
    ),
  taintedDenied: (tool: string, by: string) =>
    errorResult(
      `Denied: untrusted content from ${by} entered this conversation and ${tool} can send data out; the config's policy ("taint": "deny") refuses such calls for the rest of the conversation`,
    ),
} as const;

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

/** The part of a plugin's code that failed. */
export type PluginPhase = "handler" | "concurrency" | "result";

/** Where a plugin's code failed. */
export interface PluginErrorOrigin {
  readonly tool: string;
  /** The plugin that provided the tool, when the registry knows it. */
  readonly plugin: string | undefined;
  /** What the plugin was doing: `handler` for a tool call, `concurrency` naming what a call writes, `result` a result not matching the tool's `outputSchema`. */
  readonly phase: PluginPhase;
  /** What the plugin's code threw. */
  readonly cause: unknown;
}

/**
 * A programming error inside a plugin (anything but a `ToolError`), wrapped so it names where
 * it happened: `Tool crash (plugin buggy-plugin) failed in its handler: TypeError: …`. The
 * original error is its `cause`.
 */
export class PluginError extends Error {
  override readonly name = "PluginError";
  readonly tool: string;
  readonly plugin: string | undefined;
  readonly phase: PluginPhase;

  constructor(origin: PluginErrorOrigin) {
    const by = origin.plugin === undefined ? "" : ` (plugin ${origin.plugin})`;
    super(`Tool ${origin.tool}${by} failed in its ${origin.phase}: ${describeThrown(origin.cause)}`, { cause: origin.cause });
    this.tool = origin.tool;
    this.plugin = origin.plugin;
    this.phase = origin.phase;
  }
}

/** Thrown by `Workspace.open` when the root is relative, missing or a file; says what to change. */
export class WorkspaceError extends Error {
  override readonly name = "WorkspaceError";
}

/** Whether `error` is `signal`'s own abort, rethrown after it aborted (as fetch or a spawned process do). */
export function isCancellation(error: unknown, signal: AbortSignal): boolean {
  if (!signal.aborted) return false;
  return error === signal.reason || (typeof error === "object" && error !== null && "name" in error && error.name === "AbortError");
}

function describeThrown(thrown: unknown): string {
  return thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
}
