/**
 * The bash parser the policy reads commands with: tree-sitter's bash grammar, run by
 * web-tree-sitter (both WebAssembly, no native build). This module is loaded only when a
 * policy has a rule on a `bash` command (`lazily`), and the grammar once per process.
 */
import { dirname } from "node:path";
import { Language, type Node, Parser } from "web-tree-sitter";

/** A parsed line's syntax tree; `close` frees its memory. */
export interface ParsedLine {
  readonly root: Node;
  close(): void;
}

// Resolved from the runtime's own folder: a bundle that carries this module lives elsewhere.
const RUNTIME_FOLDER = dirname(Bun.resolveSync("@plugboard/runtime/package.json", import.meta.dir));

let parser: Promise<Parser> | undefined;
let parses = 0;

/** The tree of `text`, or undefined when it is not bash the grammar reads whole (a syntax error, a missing token). */
export async function parseBash(text: string): Promise<ParsedLine | undefined> {
  parses++;
  parser ??= loadParser();
  const tree = (await parser).parse(text);
  if (tree === null) return undefined;
  if (tree.rootNode.hasError) {
    tree.delete();
    return undefined;
  }
  return { root: tree.rootNode, close: () => tree.delete() };
}

async function loadParser(): Promise<Parser> {
  const file = (name: string) => Bun.file(Bun.resolveSync(name, RUNTIME_FOLDER)).bytes();
  await Parser.init({ wasmBinary: await file("web-tree-sitter/web-tree-sitter.wasm") });
  const bash = await Language.load(await file("tree-sitter-bash/tree-sitter-bash.wasm"));
  return new Parser().setLanguage(bash);
}

/** How many texts `parseBash` was given in this process (a line, each nested script): how tests see that a call reads its line once. */
export function bashParses(): number {
  return parses;
}
