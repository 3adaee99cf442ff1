/**
 * What a file change looks like to the person asked about it: rows of a line diff (jsdiff's
 * patch, three lines of context around each change) or the head of a new file, bounded so a
 * huge file cannot flood a terminal or a page (at most `MAX_ROWS` rows of at most
 * `MAX_ROW_CHARS` characters, then a row that says how many more). Rows are plain text: the
 * CLI writes their control characters out, the page sets them as text. Imports nothing of
 * Node's, so the page uses it too (`@plugboard/runtime/change-rows`).
 */
import { structuredPatch } from "diff";

import type { ChangeRow } from "./row-mark.ts";

export type { ChangeRow, FileChange } from "./row-mark.ts";
export { rowMark } from "./row-mark.ts";

/** The most rows shown; the head of a new file is shorter. */
export const MAX_ROWS = 40;
/** The lines of a new file shown. */
export const HEAD_LINES = 20;
/** A longer line is cut here, with `…`. */
export const MAX_ROW_CHARS = 300;
/** Past this many changed lines a diff is not worked out (its cost grows with them): the rows say the whole text is replaced. */
const MAX_EDIT_LENGTH = 2000;

/**
 * The line diff from `oldText` to `newText`.
 *
 * @example changeRows("a\nb\n", "a\nc\n") // [{ kind: "kept", text: "a" }, { kind: "removed", text: "b" }, { kind: "added", text: "c" }]
 */
export function changeRows(oldText: string, newText: string): ChangeRow[] {
  const patch =
    fewestEdits(oldText, newText) > MAX_EDIT_LENGTH
      ? undefined
      : structuredPatch("", "", oldText, newText, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  if (patch === undefined) return [skipped(`replaces all ${lines(oldText).length} lines`), ...headRows(newText)];
  const rows: ChangeRow[] = [];
  let next = 1;
  for (const hunk of patch.hunks) {
    // With context, a hunk without old lines is the whole of an empty text (jsdiff counts it from 1).
    const start = hunk.oldStart;
    if (start > next) rows.push(skipped(unchanged(start - next)));
    for (const line of hunk.lines) {
      // "\ No newline at end of file" says nothing a person needs here.
      if (line.startsWith("\\")) continue;
      rows.push({ kind: line[0] === "+" ? "added" : line[0] === "-" ? "removed" : "kept", text: line.slice(1) });
    }
    next = start + hunk.oldLines;
  }
  const after = lines(oldText).length - next + 1;
  if (rows.length > 0 && after > 0) rows.push(skipped(unchanged(after)));
  return bounded(rows, MAX_ROWS, "lines of the diff");
}

/** The head of a new file's text: its first `HEAD_LINES` lines, and how many more. */
export function headRows(text: string): ChangeRow[] {
  return bounded(
    lines(text).map((line) => ({ kind: "added" as const, text: line })),
    HEAD_LINES,
    "lines",
  );
}

function bounded(rows: ChangeRow[], most: number, what: string): ChangeRow[] {
  const cut = rows.map((row) => (row.text.length > MAX_ROW_CHARS ? { kind: row.kind, text: `${row.text.slice(0, MAX_ROW_CHARS)}…` } : row));
  return cut.length > most ? [...cut.slice(0, most), skipped(`${cut.length - most} more ${what}`)] : cut;
}

/** A text's lines, without the empty one after a final newline. */
function lines(text: string): string[] {
  if (text === "") return [];
  const all = text.split("\n");
  return all.at(-1) === "" ? all.slice(0, -1) : all;
}

/**
 * At least how many lines a diff from `oldText` to `newText` adds and removes: every line of
 * either text that the other lacks (counting repeats). jsdiff would search that many steps, each
 * costing up to the texts' length, before it gives up past `MAX_EDIT_LENGTH`; this count costs
 * one pass. Lines are jsdiff's: each with its newline.
 */
function fewestEdits(oldText: string, newText: string): number {
  const counts = new Map<string, number>();
  let edits = 0;
  for (const line of diffLines(oldText)) counts.set(line, (counts.get(line) ?? 0) + 1);
  for (const line of diffLines(newText)) {
    const left = counts.get(line) ?? 0;
    if (left > 0) counts.set(line, left - 1);
    else edits += 1;
  }
  for (const left of counts.values()) edits += left;
  return edits;
}

/** A text's lines as jsdiff splits them: each with the newline that ends it. */
function diffLines(text: string): string[] {
  return text.split(/(?<=\n)/).filter((line) => line !== "");
}

function skipped(text: string): ChangeRow {
  return { kind: "skipped", text };
}

function unchanged(count: number): string {
  return `${count} unchanged line${count === 1 ? "" : "s"}`;
}
