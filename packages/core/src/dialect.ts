/**
 * Every provider's schema dialect: the subset of JSON Schema an endpoint takes in a tool's
 * `parameters`, and the tool names it takes. The dialect changes only what is sent; what the
 * model sends back is validated against the tool's whole schema, so a constraint the dialect
 * could not say still holds. The registry rewrites each tool once (`rewriteSchema`), and the
 * authors' kit shows the same rewrite.
 */
import { geminiSchema } from "./dialect-gemini.ts";
import { strictSchema, withoutAddedNulls } from "./dialect-strict.ts";
import type { JsonSchema } from "./schema-refs.ts";

/**
 * `openai`: schemas as written; `openai-strict`: OpenAI's strict mode (`strict: true` where the
 * schema can be made strict); `gemini`: the subset of OpenAPI 3.0 Google's `Schema` takes.
 */
export type Dialect = "openai" | "openai-strict" | "gemini";

/** Every dialect, the default first. */
export const DIALECTS = ["openai", "openai-strict", "gemini"] as const satisfies readonly Dialect[];

/** A tool's parameters as a dialect sends them. */
export interface SentSchema {
  /** None: the tool is sent without parameters (Gemini refuses an object without properties). */
  readonly parameters: JsonSchema | undefined;
  /** `strict: true` is sent with the tool (openai-strict, where the rewrite is exact). */
  readonly strict: boolean;
  /** Whether the schema is sent exactly as written. */
  readonly asWritten: boolean;
  /** Constraints the sent schema leaves out, `KEYWORD at PATH` (validation still holds them). */
  readonly dropped: readonly string[];
  /** Keywords said another way, `KEYWORD at PATH as …`. */
  readonly expressed: readonly string[];
  /** openai-strict, not strict: what strict mode could not say exactly. */
  readonly notStrict: readonly string[];
  /** The arguments as the tool's schema reads them: the nulls the rewrite let the model send for optional properties removed. */
  readonly fromModel?: (args: Record<string, unknown>) => Record<string, unknown>;
}

/** The function names each dialect takes: OpenAI's, and Gemini's (a letter or `_` first; `.`, `:` allowed). */
const NAME_PATTERNS: Readonly<Record<Dialect, RegExp>> = {
  openai: /^[A-Za-z0-9_-]{1,64}$/,
  "openai-strict": /^[A-Za-z0-9_-]{1,64}$/,
  gemini: /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/,
};

/** What a dialect's names may be, for messages. */
const NAME_RULES: Readonly<Record<Dialect, string>> = {
  openai: "1-64 letters, digits, _ or -",
  "openai-strict": "1-64 letters, digits, _ or -",
  gemini: "a letter or _ first, then letters, digits, _ . : or -, at most 64 in all",
};

/**
 * Why `dialect` refuses the tool name `name`, or undefined when it takes it.
 *
 * @example refusedName("2fa_code", "gemini") // "gemini takes a letter or _ first, then …"
 */
export function refusedName(name: string, dialect: Dialect): string | undefined {
  return NAME_PATTERNS[dialect].test(name) ? undefined : `${dialect} takes ${NAME_RULES[dialect]}`;
}

/**
 * `parameters` as `dialect` sends them, with what the rewrite changed. Pure: the registry calls
 * it once per tool.
 *
 * @example rewriteSchema({ type: "object", properties: { kind: { const: "a" } }, additionalProperties: false }, "gemini").parameters
 * // { type: "object", properties: { kind: { type: "string", enum: ["a"] } } }
 */
export function rewriteSchema(parameters: JsonSchema, dialect: Dialect): SentSchema {
  const unchanged = { parameters, strict: false, asWritten: true, dropped: [], expressed: [], notStrict: [] };
  if (dialect === "openai") return unchanged;
  if (dialect === "gemini") {
    const { parameters: sent, dropped, expressed } = geminiSchema(parameters);
    return { parameters: sent, strict: false, asWritten: dropped.length === 0 && expressed.length === 0, dropped, expressed, notStrict: [] };
  }
  const strict = strictSchema(parameters);
  if (!strict.strict) return { ...unchanged, asWritten: false, notStrict: strict.reasons };
  const { source } = strict;
  const nullsAdded = strict.expressed.some((change) => change.startsWith("optional "));
  return {
    parameters: strict.parameters,
    strict: true,
    asWritten: strict.dropped.length === 0 && strict.expressed.length === 0,
    dropped: strict.dropped,
    expressed: strict.expressed,
    notStrict: [],
    ...(nullsAdded ? { fromModel: (args: Record<string, unknown>) => withoutAddedNulls(args, source) as Record<string, unknown> } : {}),
  };
}
