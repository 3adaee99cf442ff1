/**
 * Validators for tools whose parameters are plain JSON Schema (an MCP server's), built on
 * Ajv, the validator the MCP SDK itself uses. Problems come out as the same `path: problem`
 * texts as a TypeBox tool's, through core's one formatter.
 */
import { type ArgumentsValidator, fieldProblems } from "@plugboard/core/internal";
import { Ajv, type ErrorObject } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

/** Draft-07 and older say so in `$schema`; anything else is read as 2020-12, MCP's default. */
const DRAFT_07 = /json-schema\.org\/draft-0[4-7]\/schema/;

let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: Readonly<Record<string, unknown>>): Ajv | Ajv2020 {
  const options = { strict: false, allErrors: true, validateSchema: false } as const;
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
  return (args) => (validate(args) ? [] : fieldProblems((validate.errors ?? []).map(problem)));
}

function problem(error: ErrorObject): { path: string; message: string } {
  const { instancePath, keyword, params } = error;
  if (keyword === "required") return { path: `${instancePath}/${String(params.missingProperty)}`, message: "expected required property" };
  if (keyword === "additionalProperties") {
    return { path: `${instancePath}/${String(params.additionalProperty)}`, message: "unexpected property" };
  }
  return { path: instancePath, message: error.message ?? keyword };
}
