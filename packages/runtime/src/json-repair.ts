/**
 * `jsonrepair`, behind a module of ours so that repair.ts can load it on the first repair
 * with `require("./json-repair.ts")`: required by a relative path, it is the package's ESM
 * build (the one every `import` gets), and a bundle makes it a chunk of its own.
 */
export { jsonrepair } from "jsonrepair";
