/**
 * Where a config file writes its policy and hooks: each rule's, the default's and each
 * hook's line, and its text as written (jsonc-parser's syntax tree keeps every node's
 * offset), so `plugboard policy explain` can name the rule as the person wrote it.
 */
import { jsoncTree } from "./json.ts";
import type { Node } from "./jsonc.ts";

const { findNodeAtLocation, parseTree } = jsoncTree;

/** One entry of the config as written: its 1-based line and its text on one line. */
export interface WrittenEntry {
  readonly line: number;
  readonly text: string;
}

/** The policy's and hooks' entries as written, in config order (none where the file has no such key). */
export interface PolicySource {
  readonly rules: readonly WrittenEntry[];
  readonly default: WrittenEntry | undefined;
  /** `"taint": …` in the policy. */
  readonly taint: WrittenEntry | undefined;
  readonly before: readonly WrittenEntry[];
  readonly after: readonly WrittenEntry[];
}

/**
 * Locates the entries in a config's text.
 *
 * @example locatePolicy('{\n  "policy": { "rules": [{ "tool": "bash", "action": "ask" }] }\n}').rules[0] // { line: 2, text: '{ "tool": "bash", "action": "ask" }' }
 */
export function locatePolicy(text: string): PolicySource {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const entries = (...path: string[]) => (root ? (findNodeAtLocation(root, path)?.children ?? []).map((node) => written(text, node)) : []);
  const key = (name: string) => (root ? findNodeAtLocation(root, ["policy", name])?.parent : undefined);
  const defaultNode = key("default");
  const taintNode = key("taint");
  return {
    rules: entries("policy", "rules"),
    default: defaultNode ? written(text, defaultNode) : undefined,
    taint: taintNode ? written(text, taintNode) : undefined,
    before: entries("hooks", "before"),
    after: entries("hooks", "after"),
  };
}

function written(text: string, node: Node): WrittenEntry {
  const line = text.slice(0, node.offset).split("\n").length;
  return { line, text: text.slice(node.offset, node.offset + node.length).replace(/\s+/g, " ") };
}
