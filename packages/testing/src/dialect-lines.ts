/**
 * What each model dialect sends of a tool's parameters, in a line per tool for `plugin check`:
 * the dialects that take the schema as written, and what each rewrite drops or says another
 * way. The rewrite is the app's own (`rewriteSchema` in `@plugboard/core`), run here the same.
 */
import { type Dialect, DIALECTS, refusedName, rewriteSchema, type SentSchema } from "@plugboard/core";

/** A tool as the harness lists it. */
export interface ListedTool {
  readonly name: string;
  readonly parameters: unknown;
}

/**
 * One line for `tool`.
 *
 * @example dialectLine({ name: "read_file", parameters }) // "read_file: as written in openai; gemini drops additionalProperties at the root; …"
 */
export function dialectLine(tool: ListedTool): string {
  const sent = DIALECTS.map((dialect) => [dialect, rewriteSchema(jsonObject(tool.parameters), dialect)] as const);
  const asWritten = sent.filter(([, rewrite]) => rewrite.asWritten).map(([dialect]) => dialect);
  const rewritten = sent.filter(([, rewrite]) => !rewrite.asWritten).map(([dialect, rewrite]) => `${dialect} ${changes(dialect, rewrite)}`);
  return [`${tool.name}: as written in ${asWritten.length === 0 ? "none" : asWritten.join(", ")}`, ...rewritten].join("; ");
}

/** Each dialect that refuses `tool`'s name, with its rule. */
export function refusedNames(tool: ListedTool): string[] {
  return DIALECTS.flatMap((dialect) => {
    const reason = refusedName(tool.name, dialect);
    return reason === undefined ? [] : [`${tool.name}: an app in the ${dialect} dialect refuses this name (${reason})`];
  });
}

function changes(dialect: Dialect, rewrite: SentSchema): string {
  if (dialect === "openai-strict" && !rewrite.strict) return `not strict, sent as written (strict mode cannot say ${rewrite.notStrict.join(", ")})`;
  const parts = [
    ...(rewrite.dropped.length > 0 ? [`drops ${rewrite.dropped.join(", ")}`] : []),
    ...(rewrite.expressed.length > 0 ? [`says ${rewrite.expressed.join(", ")}`] : []),
  ];
  return `${dialect === "openai-strict" ? "strict: " : ""}${parts.join("; ")}`;
}

function jsonObject(parameters: unknown): Record<string, unknown> {
  return typeof parameters === "object" && parameters !== null && !Array.isArray(parameters) ? (parameters as Record<string, unknown>) : {};
}
