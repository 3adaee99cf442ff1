/** How the demo model reports tool results back to the user: what ran, and its first lines. */

/** One executed tool call as the conversation shows it. */
export interface ToolOutcome {
  readonly name: string;
  /** The call's raw JSON arguments. */
  readonly arguments: string;
  readonly content: string;
}

const MAX_LINES = 10;
const SELF_DESCRIBING = new Set(["write_file", "edit_file"]);

/** A short text summarising every outcome: a header per call and the first lines of its result. */
export function summarizeResults(outcomes: readonly ToolOutcome[]): string {
  if (outcomes.length === 0) return "There were no tool results to report.";
  return outcomes.map(summarize).join("\n\n");
}

function summarize(outcome: ToolOutcome): string {
  const header = headerFor(outcome.name, parseArguments(outcome.arguments));
  if (outcome.content.startsWith("Error: ")) return `${header} failed: ${outcome.content}`;
  const lines = outcome.content.split("\n");
  // "Wrote 5 bytes to notes.txt" already says everything.
  if (lines.length === 1) return SELF_DESCRIBING.has(outcome.name) ? outcome.content : `${header}: ${outcome.content}`;
  const shown = lines.slice(0, MAX_LINES);
  const rest = lines.length - shown.length;
  return [`${header}:`, ...shown, ...(rest > 0 ? [`… (${rest} more lines of output)`] : [])].join("\n");
}

function headerFor(name: string, args: Record<string, unknown>): string {
  const value = (key: string) => (typeof args[key] === "string" ? String(args[key]) : "");
  switch (name) {
    case "read_file":
      return `Read ${value("path")}`;
    case "glob":
      return `Files matching ${value("pattern")}`;
    case "bash":
      return `Ran \`${value("command")}\``;
    case "edit_file":
      return `Editing ${value("path")}`;
    case "write_file":
      return `Writing ${value("path")}`;
    default:
      return `Called ${name}`;
  }
}

function parseArguments(raw: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(raw);
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
