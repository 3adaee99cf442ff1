/**
 * A tool's parameters as OpenAI's strict mode takes them (`strict: true`: arguments decoded
 * to match the schema): every object closed (`additionalProperties: false`) with every
 * property required, an optional one made nullable; only the keywords strict mode supports.
 * It is strict only where the rewrite is exact — every value the sent schema admits is valid
 * against the tool's own once the nulls it added are removed (`withoutAddedNulls`); a schema
 * it cannot say exactly (`minLength`, a recursive `$ref`, …) is sent as written, not strict.
 */
import { inlineRefs, isSchema, type JsonSchema } from "./schema-refs.ts";

/** Keywords strict mode takes (platform.openai.com/docs/guides/structured-outputs, "Supported schemas"). */
const SUPPORTED = new Set([
  "type",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "anyOf",
  "pattern",
  "format",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
]);

/** Annotations that constrain nothing: left out without changing what is valid. */
const ANNOTATIONS = new Set(["$schema", "$id", "$comment", "title", "default", "examples", "example", "deprecated", "readOnly", "writeOnly"]);

/** The string formats strict mode takes. */
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);

/** What the strict rewrite sends: `strict` only when it is exact. */
export type StrictRewrite =
  | {
      readonly strict: true;
      readonly parameters: JsonSchema;
      readonly dropped: readonly string[];
      readonly expressed: readonly string[];
      /** The tool's schema with its references inlined: what `withoutAddedNulls` reads. */
      readonly source: JsonSchema;
    }
  /** Not strict: the schema is sent as written; `reasons` say what strict mode could not say exactly. */
  | { readonly strict: false; readonly reasons: readonly string[] };

/** Rewrites `schema` for strict mode, or says why it cannot be strict. */
export function strictSchema(schema: JsonSchema): StrictRewrite {
  const { schema: inlined, cut } = inlineRefs(schema);
  const reasons: string[] = [...cut];
  const dropped: string[] = [];
  const expressed: string[] = [];
  const rewrite = (node: unknown, path: string, inAnyOf = false): JsonSchema => {
    const at = path === "" ? "the root" : path;
    const child = (key: string) => (path === "" ? key : `${path}.${key}`);
    if (!isSchema(node)) {
      reasons.push(`a boolean schema at ${at}`);
      return {};
    }
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (ANNOTATIONS.has(key)) dropped.push(`${key} at ${at}`);
      else if (key === "const") {
        out.enum = [value];
        expressed.push(`const at ${at} as enum`);
      } else if (!SUPPORTED.has(key)) reasons.push(`${key} at ${at}`);
      else if (key === "format" && !FORMATS.has(String(value))) reasons.push(`format ${String(value)} at ${at}`);
      else if (key === "additionalProperties" && value !== false) reasons.push(`additionalProperties at ${at}`);
      else if (!["properties", "required", "items", "anyOf"].includes(key)) out[key] = value;
    }
    if (node.type === undefined && !Array.isArray(node.anyOf) && out.enum === undefined && node.enum === undefined) reasons.push(`no type at ${at}`);
    if (Array.isArray(node.anyOf)) out.anyOf = node.anyOf.map((branch, index) => rewrite(branch, `${child("anyOf")}[${index}]`, true));
    if (node.items !== undefined) out.items = rewrite(node.items, child("items"), inAnyOf);
    const isObject = node.type === "object" || isSchema(node.properties);
    if (isObject) {
      const properties = isSchema(node.properties) ? node.properties : {};
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      out.properties = Object.fromEntries(
        Object.entries(properties).map(([name, value]) => {
          const at = `${child("properties")}.${name}`;
          const sent = rewrite(value, at, inAnyOf);
          if (required.has(name) || acceptsNull(value)) return [name, sent];
          // Which branch a value took is not known when its nulls are removed.
          if (inAnyOf) reasons.push(`optional ${at} inside anyOf`);
          expressed.push(`optional ${at} as required and nullable`);
          return [name, nullable(sent, at)];
        }),
      );
      out.required = Object.keys(properties);
      if (node.additionalProperties === undefined) expressed.push(`additionalProperties: false at ${at}`);
      out.additionalProperties = false;
    }
    return out;
  };
  const nullable = (sent: JsonSchema, at: string): JsonSchema => {
    if (Array.isArray(sent.anyOf)) return { ...sent, anyOf: [...sent.anyOf, { type: "null" }] };
    if (typeof sent.type !== "string" && !Array.isArray(sent.type)) {
      reasons.push(`optional ${at} has no type to make nullable`);
      return sent;
    }
    const type = [...(Array.isArray(sent.type) ? sent.type : [sent.type]), "null"];
    return { ...sent, type, ...(Array.isArray(sent.enum) ? { enum: [...sent.enum, null] } : {}) };
  };
  if (inlined.type !== "object") reasons.push("the root is not an object");
  const parameters = rewrite(inlined, "");
  return reasons.length > 0 ? { strict: false, reasons } : { strict: true, parameters, dropped, expressed, source: inlined };
}

/**
 * The arguments without the `null`s strict mode made the model send for optional properties
 * it left out (at any depth, in arrays too), so that they are validated and used as absent;
 * a `null` the tool's own schema accepts stays.
 */
export function withoutAddedNulls(value: unknown, schema: unknown): unknown {
  if (!isSchema(schema)) return value;
  if (Array.isArray(value)) return isSchema(schema.items) ? value.map((item) => withoutAddedNulls(item, schema.items)) : value;
  if (typeof value !== "object" || value === null || !isSchema(schema.properties)) return value;
  const properties = schema.properties;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const property = properties[key];
    if (item === null && property !== undefined && !required.has(key) && !acceptsNull(property)) continue;
    out[key] = withoutAddedNulls(item, property);
  }
  return out;
}

/** Whether a schema already admits `null` (then a `null` sent means null, and nothing is added). */
function acceptsNull(schema: unknown): boolean {
  if (!isSchema(schema)) return true;
  if (schema.type === "null" || (Array.isArray(schema.type) && schema.type.includes("null")) || schema.const === null) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some(acceptsNull);
}
