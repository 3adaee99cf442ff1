/**
 * One conversation entry on the page: a question as plain text, or an answer built from its
 * parts (Markdown text and tool lines), live while it streams or from what was kept. A turn
 * that ended early (Stop, a failure) leaves no call running and no card waiting.
 */
import type { AnswerPart, AssistantEntry, ToolCallRecord, UserEntry } from "./conversation.ts";
import { el } from "./dom.ts";
import { MarkdownView } from "./markdown.ts";
import { ToolLine } from "./tool-line.ts";

/** A question's list item. */
export function questionItem(entry: UserEntry): HTMLLIElement {
  const item = el("li", "msg user");
  item.append(el("h3", "who", "You"), el("p", "text", entry.content));
  return item;
}

/** An answer's list item, kept in step with its entry. */
export class AnswerView {
  readonly item = el("li", "msg assistant");
  readonly #tools = new Map<string, ToolLine>();
  /** What to do to each card still on the page (a grant, a server's question) when the turn ends early. */
  readonly #cards: (() => void)[] = [];
  #text: { part: AnswerPart & { kind: "text" }; view: MarkdownView } | undefined;

  constructor(readonly entry: AssistantEntry) {
    this.item.append(el("h3", "who", "Assistant"));
    for (const part of entry.parts) {
      if (part.kind === "text") this.item.append(new MarkdownView(part.text).element);
      else this.#addTool(part.call);
    }
    if (entry.status === "streaming") this.item.setAttribute("aria-busy", "true");
    if (entry.note) this.note(entry.note, entry.status === "error");
    if (entry.status === "stopped") this.item.classList.add("stopped");
    // Kept before calls were marked: a call without a result in an ended turn was cut off.
    if (entry.status !== "streaming") for (const line of this.#tools.values()) line.stop();
  }

  /** Streamed text. */
  text(delta: string): void {
    if (!this.#text) {
      const part = { kind: "text" as const, text: "" };
      this.entry.parts.push(part);
      this.#text = { part, view: new MarkdownView() };
      this.item.append(this.#text.view.element);
    }
    this.#text.part.text += delta;
    this.#text.view.append(delta);
  }

  /** A tool call starts (or is already on the page, from its approval request). */
  toolCall(call: ToolCallRecord): ToolLine {
    const known = this.#tools.get(call.id);
    if (known) return known;
    this.#text?.view.render();
    this.#text = undefined;
    this.entry.parts.push({ kind: "tool", call });
    return this.#addTool(call);
  }

  tool(id: string): ToolLine | undefined {
    return this.#tools.get(id);
  }

  /** A card waiting for the person, under `after` (else at the end); `stop` marks it when the turn ends early. */
  card(card: HTMLElement, stop: () => void, after?: HTMLElement): void {
    if (after) after.after(card);
    else this.item.append(card);
    this.#cards.push(stop);
  }

  /** The turn ended; `cutOff`: the model stopped at its output limit. */
  finish(status: AssistantEntry["status"], reply: string, cutOff = false): void {
    this.#text?.view.render();
    this.entry.status = status;
    this.entry.reply = reply;
    if (!this.entry.parts.some((part) => part.kind === "text") && reply) this.text(reply);
    this.#text?.view.render();
    this.item.removeAttribute("aria-busy");
    if (status === "stopped" || status === "error") {
      for (const line of this.#tools.values()) line.stop();
      for (const stop of this.#cards) stop();
    }
    if (status === "step_limit") this.note("Stopped at the step limit before a final answer.", false);
    if (status === "empty") this.note("The model answered with neither text nor a tool call.", true);
    if (cutOff) this.note("The answer was cut off at the model's output limit.", false);
  }

  /** The answer's text as rendered (no Markdown marks), for the live region. */
  renderedText(): string {
    return [...this.item.querySelectorAll(".markdown")].map((node) => node.textContent?.trim() ?? "").join(" ");
  }

  /** A note under the answer (an error is also an alert). */
  note(text: string, isError: boolean): void {
    this.entry.note = text;
    const note = el("p", isError ? "note error" : "note", text);
    if (isError) note.setAttribute("role", "alert");
    this.item.append(note);
  }

  #addTool(call: ToolCallRecord): ToolLine {
    const line = new ToolLine(call);
    this.#tools.set(call.id, line);
    this.item.append(line.element);
    return line;
  }
}
