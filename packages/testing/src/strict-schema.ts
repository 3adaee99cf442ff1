/**
 * Which parts of a parameter schema OpenAI's strict function calling (`strict: true`,
 * Structured Outputs) would refuse. Its rules: the root is an object; every object sets
 * `additionalProperties: false` and lists every property in `required` (an optional value
 * is a union with null); only a subset of keywords is supported; at most 10 levels of
 * nesting, 5000 properties and 1000 enum values.
 */

type Schema = Readonly<Record<string, unknown>>;

/** Counts over the whole schema, for strict mode's size limits. */
interface Totals {
  properties: number;
  enumValues: number;
}

/** Keywords any schema may carry. */
const COMMON = ["type", "description", "title", "enum", "const", "anyOf", "$ref"];
/** Keywords strict mode supports per type; anything else is refused. */
const BY_TYPE: Readonly<Record<string, readonly string[]>> = {
  string: ["pattern", "format"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  array: ["items", "minItems", "maxItems"],
  object: ["properties", "required", "additionalProperties"],
  boolean: [],
  null: [],
};
const FORMATS = ["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"];
const LIMITS = { depth: 10, properties: 5000, enumValues: 1000 } as const;

/** How to do without a keyword strict mode refuses. */
const INSTEAD: Readonly<Record<string, string>> = {
  default: "say the default in the description and apply it in the handler",
  oneOf: "use anyOf",
  allOf: "merge the schemas into one object",
  not: "list the allowed values with enum",
  patternProperties: "use an array of { name, value } objects",
};

/**
 * The reasons strict mode would refuse `parameters` (a JSON Schema or a TypeBox object
 * schema), each naming the property path; empty when it fits.
 *
 * @example strictModeProblems(Type.Object({ limit: Type.Optional(Type.Integer()) }))
 * // → ["limit: optional: strict mode requires every property; …", "(parameters): …additionalProperties…"]
 */
export function strictModeProblems(parameters: unknown): string[] {
  const root: unknown = JSON.parse(JSON.stringify(parameters ?? null));
  const problems: string[] = [];
  const totals: Totals = { properties: 0, enumValues: 0 };
  if (!isSchema(root) || root.type !== "object") {
    return ["(parameters): the root must be an object schema (type: object), not a union or another type"];
  }
  walk(root, "", 1, problems, totals, true);
  if (totals.properties > LIMITS.properties) problems.push(`(parameters): ${totals.properties} properties, over strict mode's ${LIMITS.properties}`);
  if (totals.enumValues > LIMITS.enumValues) problems.push(`(parameters): ${totals.enumValues} enum values, over strict mode's ${LIMITS.enumValues}`);
  return problems;
}

function walk(schema: Schema, path: string, depth: number, problems: string[], totals: Totals, isRoot = false): void {
  const at = path === "" ? "(parameters)" : path;
  const types = typesOf(schema);
  const allowed = new Set([...COMMON, ...types.flatMap((type) => BY_TYPE[type] ?? []), ...(isRoot ? ["$defs", "definitions"] : [])]);
  for (const key of Object.keys(schema)) {
    if (allowed.has(key)) continue;
    const instead = INSTEAD[key] ?? (key.startsWith("min") || key.startsWith("max") ? "say the limit in the description and check it in the handler" : "remove it");
    problems.push(`${at}: "${key}" is not supported in strict mode (${instead})`);
  }
  if (typeof schema.format === "string" && !FORMATS.includes(schema.format)) {
    problems.push(`${at}: format "${schema.format}" is not supported in strict mode (supported: ${FORMATS.join(", ")})`);
  }
  if (Array.isArray(schema.enum)) totals.enumValues += schema.enum.length;
  if (types.includes("object")) checkObject(schema, path, depth, problems, totals);
  if (isSchema(schema.items)) walk(schema.items, `${path}[]`, depth, problems, totals);
  if (Array.isArray(schema.anyOf)) {
    for (const [index, branch] of schema.anyOf.entries()) {
      if (isSchema(branch)) walk(branch, `${at}[anyOf ${index}]`, depth, problems, totals);
    }
  }
  for (const key of ["$defs", "definitions"]) {
    const definitions = schema[key];
    if (!isRoot || !isSchema(definitions)) continue;
    for (const [name, definition] of Object.entries(definitions)) {
      if (isSchema(definition)) walk(definition, `${key}.${name}`, 1, problems, totals);
    }
  }
}

function checkObject(schema: Schema, path: string, depth: number, problems: string[], totals: Totals): void {
  const at = path === "" ? "(parameters)" : path;
  if (depth > LIMITS.depth) problems.push(`${at}: nested ${depth} objects deep, over strict mode's ${LIMITS.depth}`);
  if (schema.additionalProperties !== false) problems.push(`${at}: set additionalProperties: false`);
  const properties = isSchema(schema.properties) ? schema.properties : undefined;
  if (properties === undefined) {
    problems.push(`${at}: an object must list its properties (a free-form record is not supported)`);
    return;
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  for (const [name, property] of Object.entries(properties)) {
    totals.properties += 1;
    const child = path === "" ? name : `${path}.${name}`;
    if (!required.has(name)) {
      problems.push(`${child}: optional; strict mode requires every property: make it required and nullable (Type.Union([T, Type.Null()])), null meaning "not given"`);
    }
    if (isSchema(property)) walk(property, child, depth + 1, problems, totals);
  }
}

/** The JSON types a schema names in `type`. */
function typesOf(schema: Schema): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((type): type is string => typeof type === "string");
  return [];
}

function isSchema(value: unknown): value is Schema {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
