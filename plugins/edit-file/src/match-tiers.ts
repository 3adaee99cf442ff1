/**
 * Where `old_text` is in a file: exactly first; when it is nowhere exactly, whole lines
 * compared more and more tolerantly — ignoring trailing whitespace, then indentation, then
 * runs of whitespace within lines. A tier is used only when it finds exactly one place, and
 * always over the same number of lines as `old_text` has; `replace_all` is exact only.
 */
import type { Replacement } from "./line-endings.ts";

/** A tolerant tier, named as the result's second line names it. */
export interface Tier {
  /** What the tier ignores, as in "matched ignoring …". */
  readonly ignoring: string;
  /** The form two lines are compared in. */
  readonly key: (line: string) => string;
  /** Whether `new_text` is re-indented by the indentation difference. */
  readonly reindents: boolean;
}

export const TIERS: readonly Tier[] = [
  { ignoring: "trailing whitespace", key: (line) => line.trimEnd(), reindents: false },
  { ignoring: "indentation", key: (line) => line.trim(), reindents: true },
  { ignoring: "whitespace within lines", key: (line) => line.trim().replace(/\s+/g, " "), reindents: true },
];

/** What was found: the replacements to make, or how many places matched (0 or several). */
export type Found =
  | { readonly kind: "edit"; readonly replacements: Replacement[]; readonly tier?: Tier }
  | { readonly kind: "none" }
  | { readonly kind: "ambiguous"; readonly count: number; readonly tier?: Tier };

/** Finds `oldText` in `text` (all three in LF form) and builds the replacements. */
export function findEdit(text: string, oldText: string, newText: string, replaceAll: boolean): Found {
  const exact = exactMatches(text, oldText);
  if (exact.length === 1 || (exact.length > 1 && replaceAll)) {
    return { kind: "edit", replacements: exact.map((start) => ({ start, end: start + oldText.length, text: newText })) };
  }
  if (exact.length > 1) return { kind: "ambiguous", count: exact.length };
  if (replaceAll || oldText.trim() === "") return { kind: "none" };
  const lines = text.split("\n");
  const oldLines = linesOf(oldText);
  const withNewline = oldText.endsWith("\n");
  for (const tier of TIERS) {
    const starts = windowMatches(lines, oldLines, withNewline, tier);
    if (starts.length > 1) return { kind: "ambiguous", count: starts.length, tier };
    const [first] = starts;
    if (first !== undefined) {
      return { kind: "edit", replacements: [lineReplacement(lines, first, oldLines, withNewline, newText, tier)], tier };
    }
  }
  return { kind: "none" };
}

function exactMatches(text: string, oldText: string): number[] {
  const starts: number[] = [];
  for (let index = text.indexOf(oldText); index !== -1; index = text.indexOf(oldText, index + oldText.length)) {
    starts.push(index);
  }
  return starts;
}

/** `old_text`'s lines; a final newline means the match ends with its line's newline. */
function linesOf(text: string): string[] {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * The first line of each window of `oldLines.length` file lines equal under `tier`. With
 * `withNewline`, the window's last line must end with a newline (not be the file's last).
 */
function windowMatches(lines: readonly string[], oldLines: readonly string[], withNewline: boolean, tier: Tier): number[] {
  const wanted = oldLines.map(tier.key);
  const starts: number[] = [];
  const last = lines.length - wanted.length - (withNewline ? 1 : 0);
  for (let start = 0; start <= last; start++) {
    if (tier.key(lines[start] ?? "") !== wanted[0]) continue;
    if (wanted.every((key, offset) => key === tier.key(lines[start + offset] ?? ""))) starts.push(start);
  }
  return starts;
}

/** Whole lines `[start, start + count)` replaced by `newText`, re-indented when the tier says so. */
function lineReplacement(
  lines: readonly string[],
  start: number,
  oldLines: readonly string[],
  withNewline: boolean,
  newText: string,
  tier: Tier,
): Replacement {
  let from = 0;
  for (let index = 0; index < start; index++) from += (lines[index] ?? "").length + 1;
  const matched = lines.slice(start, start + oldLines.length);
  // old_text's final newline, when it has one, is the newline after the last matched line.
  const end = from + matched.join("\n").length + (withNewline ? 1 : 0);
  const text = tier.reindents ? reindent(newText, indentOf(oldLines), indentOf(matched)) : newText;
  return { start: from, end, text };
}

/** Each line of `text` that starts with `from` starts with `to` instead. */
function reindent(text: string, from: string, to: string): string {
  if (from === to) return text;
  return text
    .split("\n")
    .map((line) => {
      if (line.trim() === "") return line;
      return line.startsWith(from) ? to + line.slice(from.length) : to + line.trimStart();
    })
    .join("\n");
}

/** The indentation of the least indented non-blank line. */
function indentOf(lines: readonly string[]): string {
  let shortest: string | undefined;
  for (const line of lines) {
    if (line.trim() === "") continue;
    const indent = line.slice(0, line.length - line.trimStart().length);
    if (shortest === undefined || indent.length < shortest.length) shortest = indent;
  }
  return shortest ?? "";
}
