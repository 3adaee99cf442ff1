/**
 * Repairing a model's almost-right call, never guessing: arguments that are almost JSON
 * (trailing commas, a code fence around them, single quotes, unquoted keys, a missing comma,
 * a doubled encoding) are repaired with `jsonrepair` only when the repair changes nothing but
 * quoting, commas, escapes and whitespace — so a truncated `{"path":"a.t` is not completed,
 * and no value is invented (`{"a":}` does not become `{"a":null}`). A tool name that differs
 * from exactly one tool's only by case or `-`/`_` is that tool. `jsonrepair` is required on
 * the first repair: arguments that are JSON (nearly every call) never load it.
 */
import { lazilySync } from "@plugboard/core/internal";

/** The arguments as a value, and whether they had to be repaired to read. */
export interface ReadArguments {
  readonly value: unknown;
  readonly repaired: boolean;
}

/** What reading a call's raw arguments found: the arguments, and what JSON says of the text as written. */
export interface ArgumentsReading {
  /** The arguments as a value; undefined when the text is not JSON and cannot be repaired unambiguously. */
  readonly read: ReadArguments | undefined;
  /** `JSON.parse`'s message when the text is not JSON as written (repaired or not); undefined when it is. */
  readonly notJson?: string;
}

/**
 * Reads `raw` as JSON, repairing it when the repair is unambiguous; undefined when it is not
 * JSON and cannot be repaired so.
 *
 * @example readArguments('{"path":"a.txt",}') // { value: { path: "a.txt" }, repaired: true }
 */
export function readArguments(raw: string): ReadArguments | undefined {
  return readCallArguments(raw).read;
}

/**
 * `readArguments`, and whether `raw` was JSON as written: the one read of a call's arguments.
 *
 * @example readCallArguments('{"a":1,}') // { read: { value: { a: 1 }, repaired: true }, notJson: "JSON Parse error: …" }
 */
export function readCallArguments(raw: string): ArgumentsReading {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { read: repaired(raw), notJson: (error as SyntaxError).message };
  }
  // A doubled encoding: a JSON string holding the arguments' JSON.
  if (typeof value !== "string") return { read: { value, repaired: false } };
  const inner = strictly(value) ?? repaired(value);
  if (inner === undefined || typeof inner.value !== "object" || inner.value === null) return { read: { value, repaired: false } };
  return { read: { value: inner.value, repaired: true } };
}

/**
 * The one tool of `names` that `name` means when it differs only by case or `-`/`_`;
 * undefined when none or several do.
 *
 * @example toolNamed("Read-File", ["read_file", "glob"]) // "read_file"
 */
export function toolNamed(name: string, names: readonly string[]): string | undefined {
  const wanted = loose(name);
  const candidates = names.filter((each) => loose(each) === wanted);
  return candidates.length === 1 ? candidates[0] : undefined;
}

function loose(name: string): string {
  return name.toLowerCase().replaceAll("-", "_");
}

function strictly(text: string): ReadArguments | undefined {
  try {
    return { value: JSON.parse(text), repaired: false };
  } catch {
    return undefined;
  }
}

/** A fence around the whole text: ```json … ``` (the language tag optional). */
const FENCE = /^\s*```[\w-]*[^\S\n]*\n([\s\S]*?)\n?[^\S\n]*```\s*$/;

function repaired(raw: string): ReadArguments | undefined {
  const text = FENCE.exec(raw)?.[1] ?? raw;
  const unfenced = text !== raw;
  const plain = strictly(text);
  if (plain !== undefined) return unfenced ? { value: plain.value, repaired: true } : plain;
  const { jsonrepair } = lazilySync("the JSON repair jsonrepair", () => require("./json-repair.ts") as typeof import("./json-repair.ts"));
  let fixed: string;
  try {
    fixed = jsonrepair(text);
  } catch {
    return undefined;
  }
  if (!closed(text) || skeleton(fixed) !== skeleton(text)) return undefined;
  // Only arguments are repaired: text that jsonrepair reads as a lone string or a list is no call.
  const value = strictly(fixed)?.value;
  return typeof value === "object" && value !== null && !Array.isArray(value) ? { value, repaired: true } : undefined;
}

/**
 * Whether every string and bracket the text opens it also closes, in order: a text that ends
 * inside a string or an object was cut off, and completing it would be a guess.
 */
function closed(text: string): boolean {
  const open: string[] = [];
  let quote: string | undefined;
  for (let at = 0; at < text.length; at++) {
    const char = text.charAt(at);
    if (quote !== undefined) {
      if (char === "\\") at++;
      else if (char === quote) quote = undefined;
    } else if (char === '"' || char === "'") quote = char;
    else if (char === "{" || char === "[") open.push(char === "{" ? "}" : "]");
    else if ((char === "}" || char === "]") && open.pop() !== char) return false;
  }
  return quote === undefined && open.length === 0;
}

/**
 * The text without what an unambiguous repair may change: quotes, commas, backslashes and
 * whitespace. A repair that adds or drops anything else (a closing brace or quote for a cut-off
 * call, a `null` for a missing value, a comment or `...` removed) changes the skeleton.
 */
function skeleton(text: string): string {
  return text.replace(/["'`,\\\s]/g, "");
}
