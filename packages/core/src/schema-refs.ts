/**
 * A JSON Schema with its `$ref`s replaced by what they point to, for providers that take no
 * references (Gemini) and for the strict rewrite, which walks the schema as one tree. A
 * reference met again inside its own expansion (a recursive schema) is followed to a fixed
 * depth, then cut to an untyped object.
 */

/** A JSON Schema object, as read from a tool's `parameters`. */
export type JsonSchema = { readonly [keyword: string]: unknown };

/** How many times one reference is expanded inside itself before it is cut. */
export const REF_DEPTH = 3;

/** The schema with every `$ref` inlined (and `$defs`/`definitions` left out), and the references cut. */
export interface Inlined {
  readonly schema: JsonSchema;
  /** `$ref at PATH` for each reference cut to an untyped object (recursive beyond `REF_DEPTH`, or pointing nowhere). */
  readonly cut: readonly string[];
  /** How many references were followed. */
  readonly inlined: number;
}

/**
 * Inlines the references of `root` that point into it (`#`, `#/$defs/…`, `#/definitions/…`,
 * any JSON pointer); others, and recursion deeper than `REF_DEPTH`, become `{ type: "object" }`.
 *
 * @example inlineRefs({ type: "object", properties: { a: { $ref: "#/$defs/A" } }, $defs: { A: { type: "string" } } }).schema
 * // { type: "object", properties: { a: { type: "string" } } }
 */
export function inlineRefs(root: JsonSchema): Inlined {
  const cut: string[] = [];
  if (!hasRef(root)) return { schema: withoutDefinitions(root), cut, inlined: 0 };
  let inlined = 0;
  const visit = (node: unknown, path: string, chain: readonly string[]): unknown => {
    if (!isSchema(node)) return node;
    const ref = node.$ref;
    if (typeof ref === "string") {
      const target = resolve(root, ref);
      const depth = chain.filter((seen) => seen === ref).length;
      if (target === undefined || depth >= REF_DEPTH) {
        cut.push(`$ref ${ref} at ${path || "the root"}`);
        return { type: "object", ...(typeof node.description === "string" ? { description: node.description } : {}) };
      }
      inlined += 1;
      const { $ref: _, ...beside } = node;
      // Keywords beside a `$ref` (a description, most often) win over the target's.
      return visit({ ...withoutDefinitions(target), ...beside }, path, [...chain, ref]);
    }
    return mapSubschemas(withoutDefinitions(node), path, (child, at) => visit(child, at, chain));
  };
  const schema = visit(root, "", []) as JsonSchema;
  return { schema, cut, inlined };
}

/** Keywords whose value is a map of names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "dependentSchemas"]);
/** Keywords whose value is a schema, or a list of schemas. */
const SUBSCHEMAS = new Set(["items", "prefixItems", "additionalProperties", "unevaluatedProperties", "propertyNames", "contains", "not", "if", "then", "else", "anyOf", "oneOf", "allOf"]);

/**
 * A copy of `node` with each of its subschemas (not its values: `enum`, `const`, `default`
 * stay as they are) replaced by `map` of it; `path` names where each lies (`properties.a.items`).
 */
function mapSubschemas(node: JsonSchema, path: string, map: (child: unknown, path: string) => unknown): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    const at = path === "" ? key : `${path}.${key}`;
    if (SCHEMA_MAPS.has(key) && isSchema(value)) out[key] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, map(child, `${at}.${name}`)]));
    else if (SUBSCHEMAS.has(key)) out[key] = Array.isArray(value) ? value.map((child, index) => map(child, `${at}[${index}]`)) : map(value, at);
    else out[key] = value;
  }
  return out;
}

/** Whether a `$ref` key lies anywhere in `value` (a quick look before the copying walk). */
function hasRef(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some(hasRef);
  for (const key in value) {
    if (key === "$ref" || hasRef((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** Whether `value` is a schema object (not an array, not a boolean schema). */
export function isSchema(value: unknown): value is JsonSchema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The node `ref` points to inside `root` (a JSON pointer after `#`), or undefined. */
function resolve(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter((part) => part !== "")) {
    const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    node = isSchema(node) ? node[part] : Array.isArray(node) ? node[Number(part)] : undefined;
  }
  return isSchema(node) ? node : undefined;
}

function withoutDefinitions(node: JsonSchema): JsonSchema {
  if (!("$defs" in node) && !("definitions" in node)) return node;
  const { $defs: _, definitions: __, ...rest } = node;
  return rest;
}
