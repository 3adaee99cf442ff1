/**
 * Arguments made up from a tool's parameter schema, the JSON Schema the model sees: valid
 * ones whose values a tool cannot use (for the checks that call handlers) and invalid ones
 * that the runtime must refuse before any handler runs.
 */

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

type Schema = Readonly<Record<string, unknown>>;

/**
 * Strings a tool can foresee failing on, in a workspace that holds `README.md` and `docs/`:
 * a missing path, a folder, an existing file (the plain case), a path that climbs out, an
 * absolute path elsewhere, and the empty string.
 */
export const UNFIT_TEXTS = [
  "missing/nothing-here.txt",
  "docs",
  "README.md",
  "../outside-the-workspace.txt",
  "/plugboard-check-nowhere/missing.txt",
  "",
] as const;

/**
 * Argument objects in which every string is one of `UNFIT_TEXTS`, each with only the
 * required properties and with all of them, and with each union's first non-null choice
 * and with null where a union allows it; numbers sit at their minimum. Not yet checked
 * against the schema's other keywords (a pattern, a maximum): the caller filters.
 */
export function unfitArguments(parameters: unknown): Record<string, Json>[] {
  const sets = new Map<string, Record<string, Json>>();
  for (const preferNull of [false, true]) {
    for (const text of UNFIT_TEXTS) {
      for (const every of [false, true]) {
        const value = sample(parameters, { text, every, preferNull }, 0);
        if (isRecord(value)) sets.set(JSON.stringify(value), value);
      }
    }
  }
  return [...sets.values()];
}

/** How to fill in values: the text for strings, all properties or the required ones, null first in unions or last. */
interface Fill {
  readonly text: string;
  readonly every: boolean;
  readonly preferNull: boolean;
}

/** One call the runtime must refuse: what is wrong with it, and the raw arguments text. */
export interface InvalidCase {
  readonly label: string;
  readonly raw: string;
}

/**
 * Arguments the runtime must refuse: text that is not JSON, an array, each required
 * property missing, each typed property given a value of another JSON type, and an
 * undeclared property when the schema closes the object.
 */
export function invalidArguments(parameters: unknown): InvalidCase[] {
  const cases: InvalidCase[] = [
    { label: "text that is not JSON", raw: '{"unterminated' },
    { label: "a JSON array instead of an object", raw: "[]" },
  ];
  const base = sample(parameters, { text: "README.md", every: true, preferNull: false }, 0);
  if (!isSchema(parameters) || !isRecord(base)) return cases;
  const properties = isSchema(parameters.properties) ? parameters.properties : {};
  const required = Array.isArray(parameters.required) ? parameters.required.filter((name) => typeof name === "string") : [];
  for (const name of required) {
    const { [name]: _dropped, ...rest } = base;
    cases.push({ label: `without the required property ${name}`, raw: JSON.stringify(rest) });
  }
  for (const [name, property] of Object.entries(properties)) {
    const wrong = isSchema(property) ? wrongValue(property) : undefined;
    if (wrong !== undefined) cases.push({ label: `${name} of the wrong type`, raw: JSON.stringify({ ...base, [name]: wrong }) });
  }
  if (parameters.additionalProperties === false) {
    cases.push({ label: "an undeclared property", raw: JSON.stringify({ ...base, plugboard_check_unexpected: true }) });
  }
  return cases;
}

/** A value for `schema`, filled in as `fill` says. */
function sample(schema: unknown, fill: Fill, depth: number): Json | undefined {
  if (!isSchema(schema) || depth > 8) return undefined;
  if ("const" in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  const types = typesOf(schema);
  if (Array.isArray(schema.anyOf)) {
    const branches = schema.anyOf.filter(isSchema);
    const nulls = branches.filter((branch) => branch.type === "null");
    const others = branches.filter((branch) => branch.type !== "null");
    for (const branch of fill.preferNull ? [...nulls, ...others] : [...others, ...nulls]) {
      const value = sample(branch, fill, depth + 1);
      if (value !== undefined) return value;
    }
    return undefined;
  }
  const type = fill.preferNull && types.includes("null") ? "null" : (types.find((name) => name !== "null") ?? types[0]);
  if (type === "integer" || type === "number") return numberIn(schema, type === "integer");
  if (type === "boolean") return fill.every;
  if (type === "null") return null;
  if (type === "array") {
    const item = sample(schema.items, fill, depth + 1);
    const count = Math.max(typeof schema.minItems === "number" ? schema.minItems : 0, fill.every ? 1 : 0);
    return item === undefined ? [] : Array.from({ length: count }, () => item);
  }
  if (type === "object") return sampleObject(schema, fill, depth);
  return fill.text;
}

function sampleObject(schema: Schema, fill: Fill, depth: number): Json | undefined {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const value: Record<string, Json> = {};
  for (const [name, property] of Object.entries(properties)) {
    if (!fill.every && !required.has(name)) continue;
    const item = sample(property, fill, depth + 1);
    if (item !== undefined) value[name] = item;
    else if (required.has(name)) return undefined;
  }
  return value;
}

function numberIn(schema: Schema, integer: boolean): number {
  const step = integer ? 1 : 0.5;
  const min = numeric(schema.minimum) ?? plus(numeric(schema.exclusiveMinimum), step);
  const max = numeric(schema.maximum) ?? plus(numeric(schema.exclusiveMaximum), -step);
  const value = min ?? Math.min(1, max ?? 1);
  return integer ? Math.ceil(value) : value;
}

/** Values of every JSON type; the first whose type the schema does not allow is the wrong one. */
const WRONG: readonly Json[] = ["plugboard-check", 12.5, true, [], { plugboard_check: true }, null];

function wrongValue(schema: Schema): Json | undefined {
  const allowed = declaredTypes(schema);
  if (allowed === undefined) return undefined;
  return WRONG.find((value) => {
    const type = jsonType(value);
    return !allowed.has(type) && !(type === "integer" && allowed.has("number"));
  });
}

/** The JSON types a schema allows; undefined when it does not say (then anything may be valid). */
function declaredTypes(schema: Schema): Set<string> | undefined {
  if (Array.isArray(schema.anyOf)) {
    const union = new Set<string>();
    for (const branch of schema.anyOf) {
      const types = isSchema(branch) ? declaredTypes(branch) : undefined;
      if (types === undefined) return undefined;
      for (const type of types) union.add(type);
    }
    return union;
  }
  const types = typesOf(schema);
  return types.length > 0 ? new Set(types) : undefined;
}

/** The JSON Schema type of a value; a whole number is an `integer` (which `number` also allows). */
function jsonType(value: Json): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function typesOf(schema: Schema): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((type): type is string => typeof type === "string");
  return [];
}

function numeric(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}

function plus(value: number | undefined, step: number): number | undefined {
  return value === undefined ? undefined : value + step;
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isRecord(value: Json | undefined): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
