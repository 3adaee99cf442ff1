/**
 * Endpoints stricter than OpenAI's default, for tests of what a client sends them. `gemini`
 * answers as Gemini's OpenAI-compatible endpoint does: it takes only the request fields it
 * knows and, in a tool's parameters, only the fields of Google's `Schema` (ai.google.dev,
 * "Schema"), anything else refused with its 400 (`Invalid JSON payload received. Unknown name
 * "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find
 * field.`, a one-element array with the field violations). `openai-strict` answers as OpenAI
 * does a tool sent with `strict: true` whose schema breaks strict mode's rules. Written from
 * the providers' documents and reported bodies, apart from any code that rewrites schemas.
 */

/** Which provider's rules a scripted model enforces. */
export type ProviderRules = "gemini" | "openai-strict";

/** The fields of Google's `Schema`. */
const GEMINI_SCHEMA = new Set(["type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems", "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum"]);
const GEMINI_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"]);
/** The request fields Gemini's OpenAI-compatible endpoint takes (of those a chat client sends). */
const GEMINI_REQUEST = new Set(["model", "messages", "tools", "tool_choice", "stream", "temperature", "top_p", "n", "max_tokens", "max_completion_tokens", "stop", "response_format", "reasoning_effort", "seed"]);
const GEMINI_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** What strict mode takes in a schema (platform.openai.com, Structured Outputs, "Supported schemas"). */
const STRICT_KEYWORDS = new Set(["type", "description", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "$ref", "$defs", "definitions", "pattern", "format", "multipleOf", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minItems", "maxItems"]);

/** A refusal: the status and body the provider answers. */
export interface Refusal {
  readonly status: number;
  readonly body: unknown;
}

/** The provider's refusal of `body` under `rules`, or undefined when it takes it. */
export function refusalOf(body: Readonly<Record<string, unknown>>, rules: ProviderRules): Refusal | undefined {
  return rules === "gemini" ? geminiRefusal(body) : strictRefusal(body);
}

function geminiRefusal(body: Readonly<Record<string, unknown>>): Refusal | undefined {
  const violations: { field?: string; description: string }[] = [];
  const unknown = (name: string, at?: string) =>
    violations.push({ ...(at === undefined ? {} : { field: at }), description: `Invalid JSON payload received. Unknown name "${name}"${at === undefined ? "" : ` at '${at}'`}: Cannot find field.` });
  for (const key of Object.keys(body)) if (!GEMINI_REQUEST.has(key)) unknown(key);
  const tools = Array.isArray(body.tools) ? body.tools : [];
  tools.forEach((tool, index) => {
    const fn = record(record(tool).function);
    const at = `tools[0].function_declarations[${index}]`;
    for (const key of Object.keys(fn)) if (!["name", "description", "parameters"].includes(key)) unknown(key, at);
    if (!GEMINI_NAME.test(String(fn.name))) {
      violations.push({ field: `${at}.name`, description: `* GenerateContentRequest.${at}.name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.` });
    }
    if (fn.parameters !== undefined) checkGeminiSchema(fn.parameters, `${at}.parameters`, unknown, violations);
    const parameters = record(fn.parameters);
    if (fn.parameters !== undefined && String(parameters.type).toLowerCase() === "object" && Object.keys(record(parameters.properties)).length === 0) {
      violations.push({ field: `${at}.parameters.properties`, description: `* GenerateContentRequest.${at}.parameters.properties: should be non-empty for OBJECT type` });
    }
  });
  if (violations.length === 0) return undefined;
  const message = violations.map(({ description }) => description).join("\n");
  const error = { code: 400, message, status: "INVALID_ARGUMENT", details: [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: violations }] };
  return { status: 400, body: [{ error }] };
}

function checkGeminiSchema(schema: unknown, at: string, unknown: (name: string, at: string) => void, violations: { field?: string; description: string }[]): void {
  const node = record(schema);
  for (const key of Object.keys(node)) if (!GEMINI_SCHEMA.has(key)) unknown(key, at);
  const invalid = (field: string, what: string) => violations.push({ field: `${at}.${field}`, description: `Invalid value at '${at}.${field}' (${what})` });
  if (node.type !== undefined && !(typeof node.type === "string" && GEMINI_TYPES.has(node.type))) invalid("type", "type.googleapis.com/google.ai.generativelanguage.v1beta.Type");
  if (node.nullable !== undefined && typeof node.nullable !== "boolean") invalid("nullable", "TYPE_BOOL");
  if (node.enum !== undefined && !(Array.isArray(node.enum) && node.enum.every((value) => typeof value === "string"))) invalid("enum", "TYPE_STRING");
  // A map's entries are named by their position: `properties[1].value`.
  for (const [index, value] of Object.values(record(node.properties)).entries()) checkGeminiSchema(value, `${at}.properties[${index}].value`, unknown, violations);
  if (node.items !== undefined) checkGeminiSchema(node.items, `${at}.items`, unknown, violations);
  for (const [index, branch] of (Array.isArray(node.anyOf) ? node.anyOf : []).entries()) checkGeminiSchema(branch, `${at}.any_of[${index}]`, unknown, violations);
}

function strictRefusal(body: Readonly<Record<string, unknown>>): Refusal | undefined {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  for (const [index, tool] of tools.entries()) {
    const fn = record(record(tool).function);
    if (fn.strict !== true) continue;
    const problem = strictProblem(record(fn.parameters), []);
    if (problem === undefined) continue;
    const message = `Invalid schema for function '${String(fn.name)}': ${problem}`;
    return { status: 400, body: { error: { message, type: "invalid_request_error", param: `tools[${index}].function.parameters`, code: "invalid_function_parameters" } } };
  }
  return undefined;
}

/** The first rule of strict mode `node` breaks, worded as OpenAI words it. */
function strictProblem(node: Readonly<Record<string, unknown>>, context: readonly string[]): string | undefined {
  const where = `In context=(${context.map((part) => `'${part}'`).join(", ")})`;
  for (const key of Object.keys(node)) if (!STRICT_KEYWORDS.has(key)) return `${where}, '${key}' is not permitted.`;
  if (node.type === "object" || node.properties !== undefined) {
    if (node.additionalProperties !== false) return `${where}, 'additionalProperties' is required to be supplied and to be false.`;
    const keys = Object.keys(record(node.properties));
    const required = Array.isArray(node.required) ? node.required : [];
    const missing = keys.find((key) => !required.includes(key));
    if (missing !== undefined) return `${where}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
  }
  for (const [key, value] of Object.entries(record(node.properties))) {
    const problem = strictProblem(record(value), [...context, "properties", key]);
    if (problem !== undefined) return problem;
  }
  const children = [...(node.items === undefined ? [] : [[node.items, "items"] as const]), ...(Array.isArray(node.anyOf) ? node.anyOf.map((branch, index) => [branch, `anyOf[${index}]`] as const) : [])];
  for (const [child, part] of children) {
    const problem = strictProblem(record(child), [...context, part]);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
