/**
 * JSON with comments and trailing commas (JSONC, as in tsconfig.json), parsed by
 * `jsonc-parser`, with the first syntax error reported as line, column and a readable problem.
 * Plain JSON is parsed by `JSON.parse`: `jsonc-parser` is required only for the text it
 * refuses, so a start with plain JSON files does not load it.
 */
import type { ParseError, printParseErrorCode } from "./jsonc.ts";
import { lazilySync } from "@plugboard/core/internal";

/** The outcome of `parseJson`: the value, or where and why the text is not JSON. */
export type JsonResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly line: number; readonly column: number; readonly problem: string };

/** Where and why a text is not JSON, as messages name it. */
export interface JsonPosition {
  readonly line: number;
  readonly column: number;
  readonly problem: string;
}

type Code = ReturnType<typeof printParseErrorCode>;

/** Each error in words, and whether the text found there helps to say. */
const PROBLEMS: Readonly<Record<Code, readonly [problem: string, showFound: boolean]>> = {
  InvalidSymbol: ["unexpected text", true],
  InvalidNumberFormat: ["invalid number", true],
  PropertyNameExpected: ["expected a property name in double quotes", true],
  ValueExpected: ["expected a value", true],
  ColonExpected: ['expected ":" after the property name', true],
  CommaExpected: ['expected ","', true],
  CloseBraceExpected: ['expected "," or "}"', true],
  CloseBracketExpected: ['expected "," or "]"', true],
  EndOfFileExpected: ["unexpected text after the end of the JSON value", true],
  InvalidCommentToken: ["invalid comment", false],
  UnexpectedEndOfComment: ["unterminated /* comment", false],
  UnexpectedEndOfString: ["unterminated string (a line break inside a string is written \\n)", false],
  UnexpectedEndOfNumber: ["unterminated number", false],
  InvalidUnicode: ["invalid \\u escape in a string", false],
  InvalidEscapeCharacter: ["invalid escape sequence in a string", false],
  InvalidCharacter: ["control character in a string", false],
  "<unknown ParseErrorCode>": ["invalid JSON", false],
};

/**
 * Parses JSON text; `//` and `/* *\/` comments, trailing commas and a leading byte order
 * mark are allowed.
 *
 * @example parseJson('{"a": x}') // { ok: false, line: 1, column: 7, problem: 'unexpected text, found "x"' }
 */
export function parseJson(text: string): JsonResult {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  // Plain JSON (package.json, manifests, most configs) is read natively; what JSON.parse
  // refuses (comments, trailing commas, errors) goes to jsonc-parser, which also says where.
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch {
    // Below.
  }
  const { parse, printParseErrorCode } = jsonc();
  const errors: ParseError[] = [];
  const value: unknown = parse(source, errors, { allowTrailingComma: true, allowEmptyContent: false });
  const [first] = errors;
  if (first === undefined) return { ok: true, value };
  const before = source.slice(0, first.offset).split("\n");
  return { ok: false, line: before.length, column: (before.at(-1)?.length ?? 0) + 1, problem: describe(first, printParseErrorCode(first.error), source) };
}

/**
 * jsonc-parser's syntax tree and edits (config-edit.ts, config-locate.ts), loaded at their first
 * use: an app that edits no config file and reads plain JSON never parses the package.
 */
export const jsoncTree = {
  parseTree: (...args: Parameters<Jsonc["parseTree"]>) => jsonc().parseTree(...args),
  findNodeAtLocation: (...args: Parameters<Jsonc["findNodeAtLocation"]>) => jsonc().findNodeAtLocation(...args),
  modify: (...args: Parameters<Jsonc["modify"]>) => jsonc().modify(...args),
  applyEdits: (...args: Parameters<Jsonc["applyEdits"]>) => jsonc().applyEdits(...args),
};

type Jsonc = typeof import("./jsonc.ts");

function jsonc(): Jsonc {
  return lazilySync("the JSONC parser jsonc-parser", () => require("./jsonc.ts") as Jsonc);
}

/** The problem in words, naming the text found there where that helps. */
function describe(error: ParseError, code: Code, source: string): string {
  const [problem, showFound] = PROBLEMS[code];
  if (!showFound) return problem;
  const found = source.slice(error.offset, error.offset + error.length);
  if (found === "") return `${problem}, found the end of the file`;
  return `${problem}, found ${JSON.stringify(found.length > 20 ? `${found.slice(0, 20)}…` : found)}`;
}
