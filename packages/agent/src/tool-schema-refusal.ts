/**
 * A 400 from the endpoint that names one of the request's tools (`tools[3].parameters`,
 * Gemini's `tools[0].function_declarations[3].parameters.properties[0].value`, OpenAI's
 * `Invalid schema for function 'x'`) is about that tool's schema, and the fix is a dialect:
 * the error names the tool, who provides it and the `dialect` that sends it in a form the
 * endpoint takes, instead of leaving a person with the provider's body alone.
 */
import type { Dialect, ToolRegistry } from "@plugboard/core";
import OpenAI from "openai";
import type { ChatCompletionTool } from "openai/resources/chat/completions";

/** The endpoint refused a tool's schema. */
export class ToolSchemaRefusal extends Error {
  override readonly name = "ToolSchemaRefusal";
  constructor(
    /** The tool, as the request named it. */
    readonly tool: string,
    /** Its plugin or MCP server, when the registry knows it. */
    readonly owner: string | undefined,
    /** The dialect the request was sent in. */
    readonly dialect: Dialect,
    /** The dialect that would send it in a form the endpoint takes, when one would. */
    readonly fix: Dialect | undefined,
    /** The endpoint's own words, shortened. */
    readonly detail: string,
    options?: ErrorOptions,
  ) {
    super(`the endpoint refused the schema of tool ${tool}: ${detail}`, options);
  }
}

/** The most of the endpoint's own words a message carries. */
const DETAIL_CHARS = 200;

/**
 * A `ToolSchemaRefusal` for `error` when it is a 400 naming a tool of `tools` (the request's),
 * else undefined.
 */
export function toolSchemaRefusal(error: unknown, tools: readonly ChatCompletionTool[], registry: ToolRegistry): ToolSchemaRefusal | undefined {
  if (!(error instanceof OpenAI.BadRequestError)) return undefined;
  const texts = textsOf(error.error);
  const tool = named(texts, tools);
  if (tool === undefined) return undefined;
  const gemini = texts.some((text) => text.includes("function_declarations") || text.includes("Invalid JSON payload"));
  const { dialect } = registry;
  const fix = gemini && dialect !== "gemini" ? "gemini" : dialect === "openai-strict" ? "openai" : undefined;
  const detail = detailOf(error.error, texts);
  return new ToolSchemaRefusal(tool, registry.get(tool)?.owner, dialect, fix, detail.replace(/\s*\n\s*/g, " "), { cause: error });
}

/** The one line a person reads: the tool, who provides it, the endpoint's words and the fix. */
export function refusalMessage(refusal: ToolSchemaRefusal, baseURL: string): string {
  const owner = refusal.owner === undefined ? "" : ` (provided by ${refusal.owner})`;
  const fix =
    refusal.fix === undefined
      ? `; the ${refusal.dialect} dialect does not make it acceptable: remove the tool, or ask its author to simplify its schema`
      : `; set "model": {"dialect": "${refusal.fix}"} in the config to send it in a form the endpoint takes (it is sent in the ${refusal.dialect} dialect)`;
  return `Model endpoint ${baseURL} refused the schema of tool ${refusal.tool}${owner} (400: ${refusal.detail})${fix}`;
}

/** The tool a text names: by its index in the request, or by name (OpenAI's "function 'x'"). */
function named(texts: readonly string[], tools: readonly ChatCompletionTool[]): string | undefined {
  for (const text of texts) {
    const path = /tools\[(\d+)\](?:\.function_declarations\[(\d+)\])?/.exec(text);
    const index = path?.[2] ?? path?.[1];
    const tool = index === undefined ? undefined : tools[Number(index)];
    if (tool?.type === "function") return tool.function.name;
    const byName = /function '([^']+)'/.exec(text)?.[1];
    if (byName !== undefined && tools.some((sent) => sent.type === "function" && sent.function.name === byName)) return byName;
  }
  return undefined;
}

/** The first field violation (Gemini lists one per keyword refused) and how many more, else the message; shortened. */
function detailOf(body: unknown, texts: readonly string[]): string {
  const violations = fieldViolations(body).filter(({ description }) => typeof description === "string");
  const first = String(violations[0]?.description ?? texts.find((text) => text.length > 0) ?? "");
  const shown = first.length > DETAIL_CHARS ? `${first.slice(0, DETAIL_CHARS)}…` : first;
  return violations.length > 1 ? `${shown} and ${violations.length - 1} more` : shown;
}

/** The message, `param` and each field violation's `field` and `description` of an error body. */
function textsOf(body: unknown): string[] {
  if (typeof body !== "object" || body === null) return [];
  const { message, param } = body as { message?: unknown; param?: unknown };
  const texts = [message, param].filter((text): text is string => typeof text === "string");
  for (const { field, description } of fieldViolations(body)) texts.push(...[field, description].filter((text): text is string => typeof text === "string"));
  return texts;
}

/** The field violations of a Google error body (`details[].fieldViolations[]`). */
function fieldViolations(body: unknown): { field?: unknown; description?: unknown }[] {
  const details = (body as { details?: unknown } | null)?.details;
  return (Array.isArray(details) ? details : []).flatMap((detail) => {
    const violations = (detail as { fieldViolations?: unknown } | null)?.fieldViolations;
    return Array.isArray(violations) ? (violations as { field?: unknown; description?: unknown }[]) : [];
  });
}
