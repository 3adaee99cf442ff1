/**
 * The words of a parsed command as the policy reads them: a word's value when the shell
 * would pass it unchanged by expansion (quotes removed), else only its text as written.
 */
import type { Node } from "web-tree-sitter";

/** One word of a command. */
export interface ShellWord {
  /** The value the command receives (`"a b"` → `a b`); undefined when an expansion decides it (`$X`, `$(…)`, `$'…'`, `{a,b}`). */
  readonly value: string | undefined;
  /** As written in the line. */
  readonly raw: string;
  /** Holds an unquoted glob, brace or tilde character, so as a command name it may become another name. */
  readonly expands: boolean;
}

/** The word `node` is. */
export function wordOf(node: Node): ShellWord {
  return { value: literal(node), raw: node.text, expands: expands(node) };
}

/** A made-up word with a known value (a nested command's words come from a parent's values). */
export function knownWord(value: string): ShellWord {
  return { value, raw: value, expands: false };
}

/** Words as rules match them: values where known, else as written, joined by spaces. */
export function wordsText(words: readonly ShellWord[]): string {
  return words.map((word) => word.value ?? word.raw).join(" ");
}

function literal(node: Node): string | undefined {
  switch (node.type) {
    case "word":
      return unescapeUnquoted(node.text);
    case "number":
      return node.namedChildCount === 0 ? node.text : undefined;
    case "raw_string":
      return node.text.slice(1, -1);
    case "string":
      return node.namedChildren.every((child) => child?.type === "string_content") ? unescapeQuoted(node.text.slice(1, -1)) : undefined;
    case "concatenation": {
      const parts = node.namedChildren.map((child) => (child ? literal(child) : undefined));
      return parts.every((part) => part !== undefined) ? parts.join("") : undefined;
    }
    default:
      return undefined;
  }
}

/** Outside quotes a backslash keeps the next character literally, and a backslash-newline is removed. */
function unescapeUnquoted(text: string): string {
  return text.replace(/\\(\n|[\s\S])/g, (_, char: string) => (char === "\n" ? "" : char));
}

/** Inside double quotes a backslash escapes only `$`, backquote, `"`, `\` and a newline. */
function unescapeQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, char: string) => (char === "\n" ? "" : char));
}

function expands(node: Node): boolean {
  if (node.type === "concatenation") return node.namedChildren.some((child) => child !== null && expands(child));
  if (node.type !== "word") return node.type === "brace_expression" || node.type === "extglob_pattern";
  return /(^|[^\\])(\\\\)*[*?[\]{}~]/.test(node.text);
}
