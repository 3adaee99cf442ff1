/**
 * The message being typed at a prompt: text that may hold line breaks, a cursor, and its
 * drawing on the terminal. Continuation lines are indented under the first; a redraw starts
 * at the first line an edit changed, so typing at the end of a long paste rewrites one line.
 * Control characters in the text are drawn written out (`\x1b`), never sent to the terminal.
 */
import { visible } from "@plugboard/core/internal";
import type { Key } from "./keys.ts";

/** How a message ended: sent, or the person asked to leave (Ctrl-D on an empty message, Ctrl-C). */
export type Outcome = { readonly kind: "send"; readonly text: string } | { readonly kind: "eof" } | { readonly kind: "interrupt" };

export interface LineEditor {
  /** Applies a key; returns the outcome once the message ended. */
  press(key: Key): Outcome | undefined;
  /** Moves below the message, ending its drawing (after an outcome, or when given up). */
  leave(): void;
}

/** Starts editing at `prompt` on `output`; `history` (oldest first) is what up and down recall, and gets each sent message. */
export function createLineEditor(output: NodeJS.WriteStream, prompt: string, history: string[]): LineEditor {
  const indent = " ".repeat(Bun.stringWidth(prompt));
  let text = "";
  let cursor = 0;
  // Where the terminal's cursor is, in rows below the prompt's row and columns.
  let row = 0;
  let column = 0;
  let recalled = history.length;
  let draft = "";
  let left = false;

  const columns = () => Math.max(output.columns || 80, 10);
  const shown = (line: string) => visible(line).replaceAll("\t", "    ");
  const prefix = (index: number) => (index === 0 ? prompt : indent);
  const lineAt = (offset: number) => text.slice(0, offset).split("\n").length - 1;

  /** The row and column `offset` is drawn at. */
  const place = (offset: number) => {
    const lines = text.split("\n");
    const index = lineAt(offset);
    let top = 0;
    for (let i = 0; i < index; i++) top += rowsOf(i, lines);
    const start = offset - text.slice(0, offset).lastIndexOf("\n") - 1;
    const width = Bun.stringWidth(prefix(index) + shown(lines[index]?.slice(0, start) ?? ""));
    return { row: top + Math.floor(width / columns()), column: width % columns() };
  };
  const rowsOf = (index: number, lines: string[]) => Math.max(1, Math.ceil(Bun.stringWidth(prefix(index) + shown(lines[index] ?? "")) / columns()));

  const moveTo = (target: { row: number; column: number }) => {
    let out = "";
    if (target.row < row) out += `\u001b[${row - target.row}A`;
    if (target.row > row) out += `\u001b[${target.row - row}B`;
    out += "\r";
    if (target.column > 0) out += `\u001b[${target.column}C`;
    row = target.row;
    column = target.column;
    return out;
  };

  /** Redraws from logical line `from` to the end, then puts the cursor back at its place. */
  const draw = (from: number) => {
    const lines = text.split("\n");
    let top = 0;
    for (let i = 0; i < from; i++) top += rowsOf(i, lines);
    let out = `${moveTo({ row: top, column: 0 })}\u001b[J`;
    for (let i = from; i < lines.length; i++) out += `${i > from ? "\r\n" : ""}${prefix(i)}${shown(lines[i] ?? "")}`;
    const last = lines.length - 1;
    const width = Bun.stringWidth(prefix(last) + shown(lines[last] ?? ""));
    row = top + Math.floor(width / columns());
    for (let i = from; i < last; i++) row += rowsOf(i, lines);
    column = width % columns();
    // A full last row: the terminal waits to wrap; a space wraps it, so the cursor's row is known.
    if (column === 0 && width > 0) out += " \r\u001b[K";
    output.write(out + moveTo(place(cursor)));
  };
  const redraw = (from = 0) => draw(Math.min(from, text.split("\n").length - 1));
  const moveCursor = (offset: number) => {
    cursor = offset;
    output.write(moveTo(place(cursor)));
  };

  const insert = (inserted: string) => {
    const from = lineAt(cursor);
    text = text.slice(0, cursor) + inserted + text.slice(cursor);
    cursor += inserted.length;
    redraw(from);
  };
  const remove = (start: number, end: number) => {
    if (start >= end) return;
    text = text.slice(0, start) + text.slice(end);
    cursor = start;
    redraw(lineAt(start));
  };
  const replace = (next: string) => {
    text = next;
    cursor = next.length;
    redraw(0);
  };
  const lineStart = () => text.lastIndexOf("\n", cursor - 1) + 1;
  const lineEnd = () => (text.indexOf("\n", cursor) === -1 ? text.length : text.indexOf("\n", cursor));
  const previous = () => cursor - (isLowSurrogate(text.charCodeAt(cursor - 1)) && cursor > 1 ? 2 : 1);
  const following = () => cursor + (isLowSurrogate(text.charCodeAt(cursor + 1)) ? 2 : 1);

  /** Up and down: to the line above or below, else through the history. */
  const vertical = (step: -1 | 1) => {
    const lines = text.split("\n");
    const index = lineAt(cursor);
    const target = index + step;
    if (target >= 0 && target < lines.length) {
      const offsetInLine = cursor - lineStart();
      let start = 0;
      for (let i = 0; i < target; i++) start += (lines[i]?.length ?? 0) + 1;
      moveCursor(start + Math.min(offsetInLine, lines[target]?.length ?? 0));
      return;
    }
    const next = recalled + step;
    if (next < 0 || next > history.length) return;
    if (recalled === history.length) draft = text;
    recalled = next;
    replace(next === history.length ? draft : (history[next] ?? ""));
  };

  const end = () => {
    if (left) return;
    left = true;
    cursor = text.length;
    output.write(`${moveTo(place(cursor))}\r\n`);
  };

  output.write(prompt);
  column = Bun.stringWidth(prompt) % columns();
  row = Math.floor(Bun.stringWidth(prompt) / columns());

  return {
    press(key) {
      switch (key.kind) {
        case "text":
          insert(key.text);
          return undefined;
        case "newline":
          insert("\n");
          return undefined;
        case "enter":
          // A trailing `\` before Enter: a newline instead of sending, as in a shell.
          if (text.charAt(cursor - 1) === "\\") {
            text = text.slice(0, cursor - 1) + text.slice(cursor);
            cursor--;
            insert("\n");
            return undefined;
          }
          end();
          if (text !== "" && history.at(-1) !== text) history.push(text);
          return { kind: "send", text };
        case "backspace":
          if (cursor > 0) remove(previous(), cursor);
          return undefined;
        case "delete":
          if (cursor < text.length) remove(cursor, following());
          return undefined;
        case "eof":
          if (text === "") {
            end();
            return { kind: "eof" };
          }
          if (cursor < text.length) remove(cursor, following());
          return undefined;
        case "interrupt":
          // Ctrl-C clears a message being typed; on an empty one, it is the interrupt.
          if (text === "") {
            end();
            return { kind: "interrupt" };
          }
          replace("");
          return undefined;
        case "left":
          if (cursor > 0) moveCursor(previous());
          return undefined;
        case "right":
          if (cursor < text.length) moveCursor(following());
          return undefined;
        case "home":
          moveCursor(lineStart());
          return undefined;
        case "end":
          moveCursor(lineEnd());
          return undefined;
        case "up":
          vertical(-1);
          return undefined;
        case "down":
          vertical(1);
          return undefined;
        case "kill-to-start":
          remove(lineStart(), cursor);
          return undefined;
        case "kill-to-end":
          remove(cursor, lineEnd());
          return undefined;
        case "kill-word": {
          let start = cursor;
          while (start > 0 && /\s/.test(text.charAt(start - 1))) start--;
          while (start > 0 && !/\s/.test(text.charAt(start - 1))) start--;
          remove(start, cursor);
          return undefined;
        }
      }
    },
    leave: end,
  };
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
