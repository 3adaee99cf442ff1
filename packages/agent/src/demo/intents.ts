/**
 * The demo model's whole "understanding": a few sentence shapes, each mapped to one tool
 * call. Anything else is not understood.
 */

/** A tool call the demo model wants to make for a user's request. */
export interface Intent {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** The requests the demo model understands, as shown to the user. */
export const UNDERSTOOD: readonly { readonly tool: string; readonly example: string }[] = [
  { tool: "read_file", example: "read README.md" },
  { tool: "read_file", example: "read the first 5 lines of README.md" },
  { tool: "glob", example: "list **/*.ts" },
  { tool: "bash", example: "run ls -la" },
  { tool: "edit_file", example: "replace OLD with NEW in FILE" },
  { tool: "write_file", example: "write TEXT to FILE" },
];

/**
 * The requests of `UNDERSTOOD` that can be sent as they are (no placeholder such as FILE) for
 * the enabled `tools`: a page's example prompts, which the demo model answers with a real call.
 *
 * @example examplePrompts(["read_file"]) // ["read README.md", "read the first 5 lines of README.md"]
 */
export function examplePrompts(tools: readonly string[]): string[] {
  const placeholder = (word: string) => /^[A-Z]+$/.test(word);
  return UNDERSTOOD.filter((entry) => tools.includes(entry.tool) && !entry.example.split(" ").some(placeholder)).map((entry) => entry.example);
}

interface Shape {
  readonly pattern: RegExp;
  readonly intent: (match: RegExpMatchArray) => Intent;
  /** Match the text with its trailing punctuation (a command may end in `!` or `.`). */
  readonly keepPunctuation?: boolean;
}

const SHAPES: readonly Shape[] = [
  {
    pattern: /^replace\s+(.+?)\s+with\s+(.*?)\s+in\s+(\S+)$/is,
    intent: ([, oldText = "", newText = "", path = ""]) => ({
      tool: "edit_file",
      arguments: { path: unquote(path), old_text: literal(oldText), new_text: literal(newText) },
    }),
  },
  {
    pattern: /^write\s+(.+)\s+(?:to|into)\s+(\S+)$/is,
    intent: ([, content = "", path = ""]) => ({
      tool: "write_file",
      arguments: { path: unquote(path), content: literal(content) },
    }),
  },
  {
    pattern: /^run\s+(.+)$/is,
    keepPunctuation: true,
    intent: ([, command = ""]) => ({ tool: "bash", arguments: { command: unquote(command.trim()) } }),
  },
  {
    pattern: /^(?:read|show|cat|open)\s+(?:the\s+)?first\s+(\d+)\s+lines?\s+of\s+(?:the\s+file\s+)?(\S+)$/i,
    intent: ([, limit = "1", path = ""]) => ({
      tool: "read_file",
      arguments: { path: unquote(path), limit: Number(limit) },
    }),
  },
  {
    pattern: /^(?:read|show|cat|open)\s+(?:the\s+)?(?:file\s+)?(\S+)$/i,
    intent: ([, path = ""]) => ({ tool: "read_file", arguments: { path: unquote(path) } }),
  },
  {
    pattern: /^(?:list|find|glob)(?:\s+(?:the\s+)?files?)?(?:\s+(\S+))?$/i,
    intent: ([, pattern]) => ({ tool: "glob", arguments: { pattern: pattern ? unquote(pattern) : "*" } }),
  },
];

/** The tool call for `text`, or undefined when the demo model does not understand it. */
export function parseIntent(text: string): Intent | undefined {
  const request = text.trim().replace(/^(?:please|can you|could you)\s+/i, "");
  const bare = request.replace(/[.?!]+$/, "").trim();
  for (const { pattern, intent, keepPunctuation } of SHAPES) {
    const match = (keepPunctuation ? request : bare).match(pattern);
    if (match) return intent(match);
  }
  return undefined;
}

/** Strips one pair of matching quotes. */
function unquote(text: string): string {
  const match = text.match(/^(["'`])([\s\S]*)\1$/);
  return match?.[2] ?? text;
}

/** Unquoted text with `\n` and `\t` escapes turned into the characters they name. */
function literal(text: string): string {
  return unquote(text).replaceAll("\\n", "\n").replaceAll("\\t", "\t");
}
