/**
 * `jsonc-parser`, behind a module of ours so that json.ts can load it for the first text
 * `JSON.parse` refuses with `require("./jsonc.ts")`: required by a relative path, it is the
 * package's ESM build (the one every `import` gets, config-edit.ts's too), and a bundle makes
 * it a chunk of its own.
 */
export { type ParseError, parse, printParseErrorCode } from "jsonc-parser";
