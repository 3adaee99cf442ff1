/**
 * Validators for tools whose parameters are plain JSON Schema (an MCP server's, a confined
 * plugin's), built on Ajv, the validator the MCP SDK itself uses. Problems come out as the
 * same `path: problem` texts as a TypeBox tool's, through core's one formatter, in TypeBox's
 * words wherever TypeBox has them: a model reads `path: expected string` whether the plugin
 * runs in the app's process or confined in its host.
 */
import { type ArgumentsValidator, fieldProblems } from "@plugboard/core/internal";
import { GetErrorFunction, ValueErrorType } from "@sinclair/typebox/errors";
import type { TSchema } from "@sinclair/typebox";
import { Ajv, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** Draft-07 and older say so in `$schema`; anything else is read as 2020-12, MCP's default. */
const DRAFT_07 = /json-schema\.org\/draft-0[4-7]\/schema/;

let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: Readonly<Record<string, unknown>>): Ajv | Ajv2020 {
  // verbose: each error carries the schema it failed, which TypeBox's wording reads.
  const options = { strict: false, allErrors: true, validateSchema: false, verbose: true } as const;
  if (typeof schema.$schema === "string" && DRAFT_07.test(schema.$schema)) {
    draft07 ??= addFormats(new Ajv(options));
    return draft07;
  }
  draft2020 ??= addFormats(new Ajv2020(options));
  return draft2020;
}

/**
 * Compiles `schema` once; throws when it is not a usable JSON Schema.
 *
 * @example jsonSchemaValidator({ type: "object", required: ["message"] })({}) // ["message: expected required property"]
 */
export function jsonSchemaValidator(schema: Readonly<Record<string, unknown>>): ArgumentsValidator {
  // `$schema` picked the dialect; a draft-04 URI would be refused by draft-07's Ajv.
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  const validate = ajvFor(schema).compile(rest);
  return (args) => (validate(args) ? [] : fieldProblems(withoutBranches(validate.errors ?? []).map(problem)));
}

/**
 * The errors without those of each alternative of a failed `anyOf`/`oneOf`: that a value
 * matches none is the problem, as TypeBox reports a union.
 */
function withoutBranches(errors: readonly ErrorObject[]): ErrorObject[] {
  const unions = errors.filter(({ keyword }) => keyword === "anyOf" || keyword === "oneOf").map(({ schemaPath }) => `${schemaPath}/`);
  return unions.length === 0 ? [...errors] : errors.filter(({ schemaPath }) => !unions.some((union) => schemaPath.startsWith(union)));
}

function problem(error: ErrorObject): { path: string; message: string } {
  const { instancePath, keyword, params } = error;
  if (keyword === "required") return { path: `${instancePath}/${String(params.missingProperty)}`, message: "expected required property" };
  if (keyword === "additionalProperties") {
    return { path: `${instancePath}/${String(params.additionalProperty)}`, message: "unexpected property" };
  }
  const errorType = typeBoxError(error);
  if (errorType === undefined) return { path: instancePath, message: error.message ?? keyword };
  const schema = (error.parentSchema ?? {}) as TSchema;
  return { path: instancePath, message: GetErrorFunction()({ errorType, path: instancePath, schema, value: error.data, errors: [] }) };
}

/** The kind of TypeBox error an Ajv error is, where TypeBox words it; undefined elsewhere. */
function typeBoxError({ keyword, params, parentSchema }: ErrorObject): ValueErrorType | undefined {
  const integer = (parentSchema as { type?: unknown } | undefined)?.type === "integer";
  const numeric = (whenInteger: ValueErrorType, whenNumber: ValueErrorType) => (integer ? whenInteger : whenNumber);
  switch (keyword) {
    case "type":
      return typeof params.type === "string" ? TYPES[params.type] : ValueErrorType.Union;
    case "minimum":
      return numeric(ValueErrorType.IntegerMinimum, ValueErrorType.NumberMinimum);
    case "maximum":
      return numeric(ValueErrorType.IntegerMaximum, ValueErrorType.NumberMaximum);
    case "exclusiveMinimum":
      return numeric(ValueErrorType.IntegerExclusiveMinimum, ValueErrorType.NumberExclusiveMinimum);
    case "exclusiveMaximum":
      return numeric(ValueErrorType.IntegerExclusiveMaximum, ValueErrorType.NumberExclusiveMaximum);
    case "multipleOf":
      return numeric(ValueErrorType.IntegerMultipleOf, ValueErrorType.NumberMultipleOf);
    default:
      return KEYWORDS[keyword];
  }
}

const TYPES: Readonly<Record<string, ValueErrorType>> = {
  string: ValueErrorType.String,
  number: ValueErrorType.Number,
  integer: ValueErrorType.Integer,
  boolean: ValueErrorType.Boolean,
  object: ValueErrorType.Object,
  array: ValueErrorType.Array,
  null: ValueErrorType.Null,
};

const KEYWORDS: Readonly<Record<string, ValueErrorType>> = {
  minLength: ValueErrorType.StringMinLength,
  maxLength: ValueErrorType.StringMaxLength,
  pattern: ValueErrorType.StringPattern,
  format: ValueErrorType.StringFormat,
  minItems: ValueErrorType.ArrayMinItems,
  maxItems: ValueErrorType.ArrayMaxItems,
  uniqueItems: ValueErrorType.ArrayUniqueItems,
  contains: ValueErrorType.ArrayContains,
  minProperties: ValueErrorType.ObjectMinProperties,
  maxProperties: ValueErrorType.ObjectMaxProperties,
  const: ValueErrorType.Literal,
  enum: ValueErrorType.Union,
  anyOf: ValueErrorType.Union,
  oneOf: ValueErrorType.Union,
  not: ValueErrorType.Not,
};
