/**
 * `jsonc-parser`, behind a module of ours so that json.ts can load it for the first text
 * `JSON.parse` refuses, and for the first edit of a config file (`jsoncTree`), with
 * `require("./jsonc.ts")`: required by a relative path, it is the
 * package's ESM build (the one every `import` gets, config-edit.ts's too), and a bundle makes
 * it a chunk of its own.
 */
export { applyEdits, type Edit, type FormattingOptions, findNodeAtLocation, modify, type Node, type ParseError, parse, parseTree, printParseErrorCode } from "jsonc-parser";
