/**
 * A tool's parameters in the subset of OpenAPI 3.0 that Google's `Schema` takes (the Gemini
 * API's function declarations, through its own API and its OpenAI-compatible endpoint alike):
 * its documented fields only. What it cannot take is expressed in what it takes where that
 * keeps the meaning (`const` as a one-value `enum`, a type array as `nullable` or `anyOf`,
 * `$ref`s inlined) and dropped otherwise; validation still holds the whole schema.
 */
import { inlineRefs, isSchema, type JsonSchema } from "./schema-refs.ts";

/** The fields of Google's `Schema` (ai.google.dev/api/caching#Schema). */
const GEMINI_SCHEMA_FIELDS: ReadonlySet<string> = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

/** The formats it takes, by type: others are refused ("only 'enum' and 'date-time' are supported for STRING type"). */
const FORMATS: Readonly<Record<string, readonly string[]>> = {
  string: ["enum", "date-time"],
  number: ["float", "double"],
  integer: ["int32", "int64"],
};

/** Keywords it does not take that the rewrite says in ones it does. */
const SAID_ANOTHER_WAY = new Set(["const", "oneOf"]);

/** Copied as they are when present. */
const PLAIN = ["title", "description", "minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "minimum", "maximum", "default", "example"];

/** What the Gemini rewrite sends, with what it changed. */
export interface GeminiRewrite {
  /** None for an object without properties, which Gemini refuses ("should be non-empty for OBJECT type"): the tool takes no parameters. */
  readonly parameters: JsonSchema | undefined;
  /** Constraints left out, `KEYWORD at PATH`. */
  readonly dropped: readonly string[];
  /** Keywords said another way, `KEYWORD at PATH as …`. */
  readonly expressed: readonly string[];
}

/** Rewrites `schema` for Gemini. */
export function geminiSchema(schema: JsonSchema): GeminiRewrite {
  const { schema: inlined, cut, inlined: refs } = inlineRefs(schema);
  const dropped: string[] = [...cut];
  const expressed: string[] = refs > 0 ? ["$ref inlined"] : [];
  const rewrite = (node: unknown, path: string): JsonSchema => {
    const at = path === "" ? "the root" : path;
    const child = (key: string) => (path === "" ? key : `${path}.${key}`);
    if (!isSchema(node)) return {};
    const out: Record<string, unknown> = {};
    const anyOf: JsonSchema[] = [];
    const types = typeof node.type === "string" ? [node.type] : Array.isArray(node.type) ? node.type.filter((type) => typeof type === "string") : [];
    const given = types.filter((type) => type !== "null");
    if (types.includes("null")) out.nullable = true;
    if (given.length === 1) out.type = given[0];
    if (given.length > 1) anyOf.push(...given.map((type) => ({ type })));
    if (Array.isArray(node.type)) expressed.push(`type [${types.join(", ")}] at ${at} as ${given.length > 1 ? "anyOf" : "nullable"}`);
    for (const key of PLAIN) if (node[key] !== undefined) out[key] = node[key];
    if (node.const !== undefined) {
      if (node.const === null) out.nullable = true;
      else if (typeof node.const === "string") {
        out.enum = [node.const];
        out.type ??= "string";
        expressed.push(`const at ${at} as enum`);
      } else dropped.push(`const at ${at}`);
    }
    if (Array.isArray(node.enum)) {
      const values = node.enum.filter((value) => value !== null);
      if (values.length < node.enum.length) out.nullable = true;
      if (values.every((value) => typeof value === "string")) out.enum = values;
      else dropped.push(`enum at ${at}`);
    }
    if (typeof node.format === "string") {
      if (FORMATS[String(out.type)]?.includes(node.format)) out.format = node.format;
      else dropped.push(`format at ${at}`);
    }
    for (const key of ["anyOf", "oneOf"] as const) {
      const branches = node[key];
      if (!Array.isArray(branches)) continue;
      if (key === "oneOf") expressed.push(`oneOf at ${at} as anyOf`);
      branches.forEach((branch, index) => {
        if (isSchema(branch) && branch.type === "null" && Object.keys(branch).length === 1) out.nullable = true;
        else anyOf.push(rewrite(branch, `${child(key)}[${index}]`));
      });
    }
    if (isSchema(node.properties)) {
      const properties = Object.entries(node.properties).map(([name, value]) => [name, rewrite(value, `${child("properties")}.${name}`)] as const);
      out.properties = Object.fromEntries(properties);
      if (Array.isArray(node.required)) out.required = node.required.filter((name) => typeof name === "string" && name in (node.properties as object));
    }
    if (isSchema(node.items)) out.items = rewrite(node.items, child("items"));
    else if (node.items !== undefined) dropped.push(`items at ${at}`);
    for (const key in node) {
      if (!GEMINI_SCHEMA_FIELDS.has(key) && !SAID_ANOTHER_WAY.has(key)) dropped.push(`${key} at ${at}`);
    }
    // One branch left (the other was `null`) is the schema itself.
    if (anyOf.length === 1) return { ...anyOf[0], ...out };
    if (anyOf.length > 1) out.anyOf = anyOf;
    return out;
  };
  const parameters = rewrite(inlined, "");
  if (isSchema(parameters.properties) && Object.keys(parameters.properties).length > 0) return { parameters, dropped, expressed };
  return { parameters: undefined, dropped, expressed: [...expressed, "no properties as no parameters"] };
}
