/**
 * A text file seen with LF line endings, and written back with its own. Matching happens on
 * the LF form, so a model's LF `old_text` matches a CRLF file; writing puts back the ending
 * every untouched line had and gives the replaced text the file's dominant ending. A UTF-8
 * byte order mark is set aside and kept.
 */

/** The file's text in LF form, and what is needed to write it back as it was. */
export interface LfText {
  /** The text without BOM, every CRLF as LF. */
  readonly text: string;
  readonly bom: boolean;
  /** The ending of each LF in `text`, in order, or the one ending every line has. */
  readonly endings: readonly string[] | "\n" | "\r\n";
  /** The ending replaced text is written with: the more frequent one, LF on a tie. */
  readonly dominant: "\n" | "\r\n";
}

/** A replacement on the LF form: `[start, end)` becomes `text` (itself in LF form). */
export interface Replacement {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

const BOM = "\uFEFF";

/** Reads `raw` (a decoded file) as LF text. */
export function toLf(raw: string): LfText {
  const bom = raw.startsWith(BOM);
  const body = bom ? raw.slice(1) : raw;
  // The common case, and a 100 MB file's: no CR, nothing to convert or remember.
  if (!body.includes("\r")) return { text: body, bom, endings: "\n", dominant: "\n" };
  const text = body.replaceAll("\r\n", "\n");
  // Every line in CRLF: written back by one native replace rather than line by line.
  const lines = count(body, "\n");
  if (lines > 0 && count(body, "\r\n") === lines) return { text, bom, endings: "\r\n", dominant: "\r\n" };
  const endings: string[] = [];
  let crlf = 0;
  for (let index = body.indexOf("\n"); index !== -1; index = body.indexOf("\n", index + 1)) {
    const ending = index > 0 && body.charCodeAt(index - 1) === CR ? "\r\n" : "\n";
    if (ending === "\r\n") crlf++;
    endings.push(ending);
  }
  return { text, bom, endings, dominant: crlf > endings.length - crlf ? "\r\n" : "\n" };
}

/** `text` with every CRLF as LF: how the model's `old_text` and `new_text` are compared. */
export function lf(text: string): string {
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
}

/**
 * The file's new content: `file` with `replacements` (sorted, not overlapping) applied,
 * untouched line endings as they were, replaced text in the dominant ending, BOM kept.
 */
export function applyReplacements(file: LfText, replacements: readonly Replacement[]): string {
  if (typeof file.endings === "string") return uniformReplacements(file, file.endings, replacements);
  const endings = file.endings;
  const parts: string[] = file.bom ? [BOM] : [];
  const newline = file.dominant;
  let position = 0;
  let ending = 0;
  const copy = (from: number, to: number) => {
    let start = from;
    for (let index = file.text.indexOf("\n", from); index !== -1 && index < to; index = file.text.indexOf("\n", index + 1)) {
      parts.push(file.text.slice(start, index), endings[ending++] ?? "\n");
      start = index + 1;
    }
    parts.push(file.text.slice(start, to));
  };
  for (const { start, end, text } of replacements) {
    copy(position, start);
    ending += count(file.text, "\n", start, end);
    parts.push(newline === "\n" ? text : text.replaceAll("\n", newline));
    position = end;
  }
  copy(position, file.text.length);
  return parts.join("");
}

/** A file whose lines all end alike: the replacements on the LF text, then its ending. */
function uniformReplacements(file: LfText, ending: "\n" | "\r\n", replacements: readonly Replacement[]): string {
  const parts: string[] = file.bom ? [BOM] : [];
  let position = 0;
  for (const { start, end, text } of replacements) {
    parts.push(file.text.slice(position, start), text);
    position = end;
  }
  parts.push(file.text.slice(position));
  const lf = parts.join("");
  return ending === "\n" ? lf : lf.replaceAll("\n", "\r\n");
}

const CR = 13;

/** How many times `part` starts in `text` between `from` and `to`. */
function count(text: string, part: string, from = 0, to = text.length): number {
  let found = 0;
  for (let index = text.indexOf(part, from); index !== -1 && index < to; index = text.indexOf(part, index + part.length)) found++;
  return found;
}
