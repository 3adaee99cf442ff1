/**
 * The host protocol: what the app and a confined plugin host say to each other, one JSON
 * message per line on the host's stdin (app → host) and stdout (host → app). Every line
 * the host writes starts with the token the app sends it as the first line on its stdin
 * (never on its command line, which every process of the sandbox could read in `/proc`), so
 * that whatever a plugin prints on stdout is told apart from the protocol (the app logs it)
 * instead of breaking it.
 *
 * A host first answers `ready` with the tools of its plugins (their TypeBox schemas
 * encoded, see `encodeSchema`) or `load-failed` with the loader's error; then it answers
 * each `call` with `result` or `thrown` (after `progress` messages of its output when the call
 * asks for them), and each `writes` with `written` or `thrown`. A lazy
 * host (the app knows its tools) loads each plugin on its first request, and answers one
 * whose plugin fails to load with `load-failed` for that request.
 */
import type { AnyToolDefinition, ResultsFile, ToolResult } from "@plugboard/core";
import type { PlugboardErrorCode } from "@plugboard/errors";
import type { ResolvedPlugin } from "@plugboard/loader/resolve-plugin";

/** What the app tells a host to load (its one argument, JSON). */
export interface HostSpec {
  /** The plugins the host loads, in config order: located, their manifests checked by the app. */
  readonly plugins: readonly ResolvedPlugin[];
  readonly workspace: string;
  /**
   * The app knows the tools already (from the listing cache): each plugin is loaded on its
   * first call, and `ready` lists nothing. @default false: every plugin loaded and listed first
   */
  readonly lazy?: boolean;
  /**
   * The tools about to be called (the app's `warm`): a lazy host starts loading their plugins
   * as soon as it runs, before the first call comes. @default none
   */
  readonly first?: readonly string[];
}

/** How a tool's calls may overlap: `writes` means the host names what a call writes (`writes` request). */
export type ConcurrencyKind = "serial" | "read-only" | "writes";

/** How a definition's `concurrency` is listed. */
export function concurrencyKind(tool: AnyToolDefinition): ConcurrencyKind {
  const { concurrency } = tool;
  return concurrency === undefined ? "serial" : typeof concurrency === "string" ? concurrency : "writes";
}

/** A tool as a host lists it. */
export interface ListedTool {
  readonly name: string;
  readonly description: string;
  /** `encodeSchema` of its parameters. */
  readonly parameters: EncodedSchema;
  /** `encodeSchema` of its output schema, when it declares one. */
  readonly outputSchema?: EncodedSchema;
  readonly concurrency: ConcurrencyKind;
}

/** What a host's plugins provide, in the spec's order: what the listing cache keeps. */
export interface HostListing {
  readonly plugins: readonly { readonly name: string; readonly tools: readonly ListedTool[] }[];
}

/** What a handler threw, as the app rebuilds it: an error's class name, message and stack; a thrown value that is not an error, its text (no name). */
export interface Thrown {
  readonly name?: string;
  readonly message: string;
  readonly stack?: string;
}

export type AppMessage =
  | {
      readonly type: "call";
      readonly id: number;
      readonly tool: string;
      readonly args: Record<string, unknown>;
      readonly callId: string;
      readonly results?: ResultsFile;
      /** Someone watches: the host sends the handler's `ctx.progress` pieces as `progress` messages. */
      readonly progress?: true;
    }
  | { readonly type: "cancel"; readonly id: number }
  | { readonly type: "writes"; readonly id: number; readonly tool: string; readonly args: Record<string, unknown> };

export type HostMessage =
  | { readonly type: "ready"; readonly listing: HostListing }
  | { readonly type: "load-failed"; readonly code: PlugboardErrorCode; readonly message: string }
  | { readonly type: "result"; readonly id: number; readonly result: ToolResult }
  /** A piece of a running call's output (its handler's `ctx.progress`), before its `result`. */
  | { readonly type: "progress"; readonly id: number; readonly text: string }
  | { readonly type: "written"; readonly id: number; readonly key: string }
  | { readonly type: "thrown"; readonly id: number; readonly error: Thrown }
  /** A lazy host's plugin failed to load for this request: the loader's error. */
  | { readonly type: "load-failed"; readonly id: number; readonly code: PlugboardErrorCode; readonly message: string };

/**
 * A TypeBox schema as JSON: the schema's plain JSON, and beside it each of TypeBox's own
 * marks (its symbol-keyed `Kind`, `Hint`, `Optional`, `Readonly`) with the path of the object
 * that carries it, so that `decodeSchema` gives back a schema TypeBox's compiler checks (and
 * words its errors) exactly as the original.
 */
export interface EncodedSchema {
  readonly json: unknown;
  readonly marks: readonly (readonly [path: readonly (string | number)[], mark: string, value: string])[];
}

const MARKS = ["TypeBox.Kind", "TypeBox.Hint", "TypeBox.Optional", "TypeBox.Readonly"] as const;

/** The schema as JSON with its TypeBox marks. Functions (a `Transform`'s) are not carried: checking does not use them. */
export function encodeSchema(schema: unknown): EncodedSchema {
  const marks: [readonly (string | number)[], string, string][] = [];
  const walk = (value: unknown, path: readonly (string | number)[]): unknown => {
    if (Array.isArray(value)) return value.map((item, index) => walk(item, [...path, index]));
    if (typeof value !== "object" || value === null) return value;
    for (const mark of MARKS) {
      const carried: unknown = Reflect.get(value, Symbol.for(mark));
      if (typeof carried === "string") marks.push([path, mark, carried]);
    }
    const json: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      if (typeof item !== "function" && item !== undefined) json[key] = walk(item, [...path, key]);
    }
    return json;
  };
  return { json: walk(schema, []), marks };
}

/** The schema `encodeSchema` encoded, its marks back in place. */
export function decodeSchema(encoded: EncodedSchema): unknown {
  const json = structuredClone(encoded.json);
  for (const [path, mark, value] of encoded.marks) {
    let at: unknown = json;
    for (const key of path) at = typeof at === "object" && at !== null ? Reflect.get(at, key) : undefined;
    if (typeof at === "object" && at !== null) Reflect.set(at, Symbol.for(mark), value);
  }
  return json;
}

/**
 * The message a host's protocol line holds, or undefined when it is not one: a host runs a
 * plugin's code, which may write anything to its stdout (fd 1 included), so the app reads
 * nothing from it it has not checked the shape of.
 */
export function parseHostMessage(text: string): HostMessage | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const { type, id } = value;
  if (type === "ready") return isHostListing(value.listing) ? (value as unknown as HostMessage) : undefined;
  if (type === "load-failed") {
    const shaped = typeof value.code === "string" && typeof value.message === "string" && (id === undefined || isId(id));
    return shaped ? (value as unknown as HostMessage) : undefined;
  }
  if (!isId(id)) return undefined;
  if (type === "result") {
    const { result } = value;
    const shaped =
      isRecord(result) &&
      typeof result.content === "string" &&
      typeof result.isError === "boolean" &&
      (result.structuredContent === undefined || isRecord(result.structuredContent));
    return shaped ? (value as unknown as HostMessage) : undefined;
  }
  if (type === "written") return typeof value.key === "string" ? (value as unknown as HostMessage) : undefined;
  if (type === "progress") return typeof value.text === "string" ? (value as unknown as HostMessage) : undefined;
  if (type === "thrown") {
    const { error } = value;
    const shaped =
      isRecord(error) &&
      typeof error.message === "string" &&
      (error.name === undefined || typeof error.name === "string") &&
      (error.stack === undefined || typeof error.stack === "string");
    return shaped ? (value as unknown as HostMessage) : undefined;
  }
  return undefined;
}

/** Whether `value` is a listing (each plugin's name and tools, each tool's schema encoded): what a host sends and the listing cache keeps. */
export function isHostListing(value: unknown): value is HostListing {
  if (!isRecord(value) || !Array.isArray(value.plugins)) return false;
  return value.plugins.every((plugin) => isRecord(plugin) && typeof plugin.name === "string" && Array.isArray(plugin.tools) && plugin.tools.every(isListedTool));
}

function isListedTool(tool: unknown): boolean {
  if (!isRecord(tool)) return false;
  const { name, description, parameters, outputSchema, concurrency } = tool;
  return (
    typeof name === "string" &&
    typeof description === "string" &&
    (concurrency === "serial" || concurrency === "read-only" || concurrency === "writes") &&
    isEncodedSchema(parameters) &&
    (outputSchema === undefined || isEncodedSchema(outputSchema))
  );
}

function isEncodedSchema(schema: unknown): boolean {
  return (
    isRecord(schema) &&
    isRecord(schema.json) &&
    Array.isArray(schema.marks) &&
    schema.marks.every(
      (mark) =>
        Array.isArray(mark) &&
        mark.length === 3 &&
        Array.isArray(mark[0]) &&
        mark[0].every((key: unknown) => typeof key === "string" || typeof key === "number") &&
        typeof mark[1] === "string" &&
        typeof mark[2] === "string",
    )
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is number {
  return Number.isSafeInteger(value);
}

/** A protocol line: the token, the message, a newline. */
export function protocolLine(token: string, message: AppMessage | HostMessage): string {
  return `${token}${JSON.stringify(message)}\n`;
}

/**
 * Splits a byte stream into lines and hands each to `line`; the last, unterminated part is
 * handed over when the stream ends.
 */
export async function eachLine(stream: ReadableStream<Uint8Array>, line: (text: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    let end = pending.indexOf("\n");
    while (end !== -1) {
      line(pending.slice(0, end));
      pending = pending.slice(end + 1);
      end = pending.indexOf("\n");
    }
  }
  pending += decoder.decode();
  if (pending !== "") line(pending);
}
