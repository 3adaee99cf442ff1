/**
 * Validators for an MCP server's tools, whose parameters are plain JSON Schema, on Ajv (the
 * validator the MCP SDK itself uses). Problems come out through core's one `path: problem`
 * formatter, in Ajv's words: `count: must be integer`, `count: must be >= 1`.
 */
import { type ArgumentsValidator, fieldProblems, type PointerProblem } from "@plugboard/core/internal";
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
 * @example jsonSchemaValidator({ type: "object", required: ["message"] })({}) // ["message: must be present"]
 */
export function jsonSchemaValidator(schema: Readonly<Record<string, unknown>>): ArgumentsValidator {
  // `$schema` picked the dialect; a draft-04 URI would be refused by draft-07's Ajv.
  const { $schema: _dialect, $id: _id, ...rest } = schema;
  const validate = ajvFor(schema).compile(rest);
  return (args) => (validate(args) ? [] : fieldProblems((validate.errors ?? []).map(problem)));
}

/**
 * Ajv's error at its `instancePath`, except the two Ajv reports on the object: a missing or
 * an extra property is a problem of that property's own path (so that each gets its line).
 */
function problem({ instancePath, keyword, message, params }: ErrorObject): PointerProblem {
  if (keyword === "required") return { path: `${instancePath}/${String(params.missingProperty)}`, message: "must be present" };
  if (keyword === "additionalProperties") return { path: `${instancePath}/${String(params.additionalProperty)}`, message: "must NOT be present" };
  return { path: instancePath, message: message ?? keyword };
}
