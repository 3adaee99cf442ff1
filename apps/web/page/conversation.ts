/** What the page keeps of a conversation (in the browser only) and what it sends of it. */
import type { HistoryMessage, Taint } from "./api.ts";

/** One tool call as the page shows it and keeps it. */
export interface ToolCallRecord {
  readonly id: string;
  readonly name: string;
  /** The arguments as the model wrote them (JSON text). */
  readonly arguments: string;
  result?: string;
  /** `stopped`: the turn ended (Stop, a failure) before the result came. */
  outcome?: "ok" | "error" | "denied" | "stopped";
  durationMs?: number;
  /** Secrets replaced by `[redacted: NAME]` in the result before the model got it. */
  redactions?: number;
}

/** A piece of an answer: text, or a tool call, in the order they came. */
export type AnswerPart = { readonly kind: "text"; text: string } | { readonly kind: "tool"; readonly call: ToolCallRecord };

/** A question. */
export interface UserEntry {
  readonly role: "user";
  readonly content: string;
}

/** An answer; only `answered` and `step_limit` ones are part of the history sent. */
export interface AssistantEntry {
  readonly role: "assistant";
  readonly parts: AnswerPart[];
  reply: string;
  status: "streaming" | "answered" | "empty" | "step_limit" | "stopped" | "error";
  note?: string;
}

/** A conversation. */
export interface Conversation {
  readonly id: string;
  title: string;
  readonly createdAt: number;
  updatedAt: number;
  readonly entries: (UserEntry | AssistantEntry)[];
  /** Set once untrusted content entered it (the server's taint), and sent with every later turn; a new conversation has none. */
  taint?: Taint;
}

/** The longest title, in characters: the start of the first question. */
const TITLE_CHARS = 60;

/**
 * A conversation's title: its first question on one line, up to 60 characters, cut at the
 * last word that fits (mid-word only when one word is longer) and then marked with "…".
 *
 * @example titleOf("How many lines does notes.txt have?") // "How many lines does notes.txt have?"
 */
export function titleOf(question: string): string {
  const line = question.replace(/\s+/g, " ").trim();
  if (line.length <= TITLE_CHARS) return line;
  const cut = line.slice(0, TITLE_CHARS + 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > TITLE_CHARS / 2 ? cut.slice(0, space) : cut.slice(0, TITLE_CHARS)).trimEnd()}…`;
}

/** A new, empty conversation. */
export function newConversation(): Conversation {
  const now = Date.now();
  return { id: crypto.randomUUID(), title: "New chat", createdAt: now, updatedAt: now, entries: [] };
}

/**
 * The history the server takes: each question with its answer; a question whose answer was
 * stopped or failed leaves the history, so the next request stays well-formed.
 */
export function historyOf(conversation: Conversation): HistoryMessage[] {
  const history: HistoryMessage[] = [];
  const { entries } = conversation;
  entries.forEach((entry, index) => {
    if (entry.role === "assistant") return;
    const answer = entries[index + 1];
    if (answer?.role !== "assistant" || (answer.status !== "answered" && answer.status !== "step_limit")) return;
    history.push({ role: "user", content: entry.content }, { role: "assistant", content: answer.reply });
  });
  return history;
}

/** The outcome of a tool result. */
export function outcomeOf(content: string, isError: boolean): "ok" | "error" | "denied" {
  if (!isError) return "ok";
  return /^Error: Denied\b/.test(content) ? "denied" : "error";
}
