/**
 * What the CLI prints besides answers: colours (only on a terminal, never with NO_COLOR),
 * the one-line trace of a tool call, and the JSON events of `--json`.
 */
import { plural, visible } from "@plugboard/core/internal";
import type { AgentStatus, TokenUsage } from "@plugboard/agent";

/** Text styles; each is the identity when colours are off. */
export interface Style {
  readonly tool: (text: string) => string;
  readonly error: (text: string) => string;
  readonly dim: (text: string) => string;
}

const PREVIEW_CHARS = 200;

/** Colours for `stream` when it is a terminal and `NO_COLOR` is unset or empty. */
export function createStyle(stream: { readonly isTTY?: boolean }, env: Record<string, string | undefined>): Style {
  const on = stream.isTTY === true && (env.NO_COLOR ?? "") === "";
  const paint = (code: number) => (text: string) => (on ? `\u001b[${code}m${text}\u001b[0m` : text);
  return { tool: paint(33), error: paint(31), dim: paint(2) };
}

/** One tool call as the trace shows it. */
export interface TracedCall {
  readonly name: string;
  readonly arguments: string;
  readonly content: string;
  readonly isError: boolean;
  /** Secrets replaced by `[redacted: NAME]` before the model got the result. */
  readonly redactions?: number;
}

/**
 * `[tool] NAME ARGS → RESULT` on one line: the arguments as the model sent them and the
 * first 200 characters of the result, both with line breaks shown as `⏎` and other control
 * characters written out (`\x1b`): a result is whatever a file or a command held. When
 * secrets were taken out of the result, the line ends saying how many (`redactedNote`).
 *
 * @example traceLine({ name: "read_file", arguments: '{"path":"a"}', content: "hi", isError: false }, style)
 */
export function traceLine(call: TracedCall, style: Style): string {
  const result = preview(call.content);
  const note = call.redactions === undefined ? "" : ` ${redactedNote(call.redactions)}`;
  return `${style.tool(`[tool] ${call.name}`)} ${preview(call.arguments)} ${style.dim("→")} ${call.isError ? style.error(result) : result}${note}`;
}

/** How many of a running tool's last lines show under the spinner. */
export const TAIL_LINES = 4;
/** What is kept of a running tool's output to find its last lines in. */
const TAIL_CHARS = 8192;

/** `kept` and `piece` joined, cut to the part the last lines are found in. */
export function keepTail(kept: string, piece: string): string {
  const joined = kept + piece;
  return joined.length > TAIL_CHARS ? joined.slice(-TAIL_CHARS) : joined;
}

/**
 * The last `TAIL_LINES` lines of a running tool's output as a terminal `columns` wide shows
 * them under the spinner: indented, each cut to one row (`…`), a line redrawn with `\r` as
 * it ended, tabs as spaces, other control characters written out (`\x1b`).
 */
export function outputTail(text: string, columns: number): string[] {
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  if (lines.at(-1) === "") lines.pop();
  const room = Math.max(columns - 3, 10);
  return lines.slice(-TAIL_LINES).map((line) => {
    const shown = visible((line.split("\r").at(-1) ?? "").replaceAll("\t", "  "));
    return `  ${Bun.stringWidth(shown) <= room ? shown : `${cut(shown, room - 1)}…`}`;
  });
}

/** The longest start of `text` at most `width` columns wide. */
function cut(text: string, width: number): string {
  let out = "";
  for (const char of text) {
    if (Bun.stringWidth(out + char) > width) break;
    out += char;
  }
  return out;
}

/** What the person is told when secrets were taken out of a result: `(2 secrets redacted before the model)`. */
export function redactedNote(count: number): string {
  return `(${count} ${plural(count, "secret")} redacted before the model)`;
}

function preview(text: string): string {
  const head = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
  return visible(head.replaceAll("\r\n", "⏎").replaceAll("\n", "⏎"));
}

/** A turn's token usage as the CLI shows it after the answer: `1,234 in · 56 out`. */
export function usageLine(usage: TokenUsage): string {
  const count = (tokens: number) => tokens.toLocaleString("en-US");
  return `${count(usage.promptTokens)} in · ${count(usage.completionTokens)} out`;
}

/** The `--json` events of `run` (and `call`), one JSON object per line. */
export type JsonEvent =
  | { readonly type: "reasoning"; readonly step: number; readonly text: string }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: string }
  | { readonly type: "tool_result"; readonly id: string; readonly is_error: boolean; readonly content: string; readonly redactions?: number }
  | {
      readonly type: "final";
      readonly status: AgentStatus;
      readonly text: string;
      readonly steps: number;
      readonly duration_ms: number;
      /** The tokens of the turn's model requests, added up, when the endpoint reported them. */
      readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number };
    }
  /** The run failed (`run` only, its last line): what it said on stderr and the exit code it exits with. */
  | { readonly type: "error"; readonly message: string; readonly exit_code: number };

/** One event as a line of JSON. */
export function jsonLine(event: JsonEvent): string {
  return `${JSON.stringify(event)}\n`;
}
