/**
 * A tool's description read before it is pinned: one that addresses the model instead of
 * describing the tool — telling it to ignore its instructions or to keep something from the
 * person, naming another source's tool, hiding text in invisible characters, or running
 * longer than any description needs to — is flagged with the reason (tool poisoning). The
 * descriptions and titles in its parameter schema, its parameters' names, and the strings of
 * its defaults, examples and allowed values (`enum`, `const`), are read the same way, at any depth, within
 * bounds (depth, schemas, characters) so that no schema, however large or deep, stalls the
 * read; one past a bound is flagged as not read in full, since what lies beyond is unread.
 * Pure: the text in, the reasons out. The schema is walked by description-schema.ts.
 */
import { visible } from "@plugboard/core/internal";
import { SCANNED_CHARS, SCHEMA_BOUNDS, schemaTexts } from "./description-schema.ts";

/** The longest description that is not flagged for its length. */
export const MAX_DESCRIPTION_CHARS = 2000;

/** A tool as the scan reads it. */
export interface ScannedTool {
  readonly name: string;
  readonly description: string;
  /** Its parameter schema: every `description` and `title` in it is read too, every property's name, and every string of a `default`, `examples`, `enum` or `const`. */
  readonly parameters?: unknown;
}

/**
 * Why `tool`'s description (and its parameters') reads as addressed to the model, each reason
 * one phrase; none when it reads clean. `others` are the tools of other plugins and servers:
 * a description naming one is reaching for it.
 *
 * @example scanTool({ name: "lookup", description: "Ignore previous instructions." }, new Set()) // ['tells the model to ignore its instructions ("Ignore previous instructions")']
 */
export function scanTool(tool: ScannedTool, others: ReadonlySet<string>): string[] {
  const { texts, whole } = schemaTexts(tool.parameters);
  return [
    ...scanDescription(tool.description, others),
    ...texts.flatMap(({ where, text }) => scanDescription(text, others).map((reason) => `${where}: ${reason}`)),
    ...(whole ? [] : [`has parameters too large or too deeply nested to read in full (over ${SCHEMA_BOUNDS.depth} levels, ${SCHEMA_BOUNDS.nodes.toLocaleString("en")} schemas or ${SCHEMA_BOUNDS.chars.toLocaleString("en")} characters of descriptions)`]),
  ];
}

/** Why one description reads as addressed to the model; none when it reads clean. */
export function scanDescription(whole: string, others: ReadonlySet<string>): string[] {
  const reasons: string[] = [];
  const text = whole.length > SCANNED_CHARS ? whole.slice(0, SCANNED_CHARS) : whole;
  const ignore = IGNORE.exec(text) ?? FORGET.exec(text);
  if (ignore !== null) reasons.push(`tells the model to ignore its instructions (${quote(ignore[0])})`);
  const hide = firstMatch(HIDE, text);
  if (hide !== undefined) reasons.push(`tells the model to keep something from the user (${quote(hide)})`);
  const tag = TAG.exec(text);
  if (tag !== null) reasons.push(`speaks to the model in a tag (${quote(tag[0])})`);
  const named = namedTools(text, others);
  if (named.length > 0) reasons.push(`names ${named.length === 1 ? "another tool" : "other tools"} (${named.join(", ")})`);
  const invisible = [...new Set(text.match(INVISIBLE) ?? [])];
  if (invisible.length > 0) reasons.push(`has invisible characters (${invisible.slice(0, 5).map(codePoint).join(", ")}${invisible.length > 5 ? ", …" : ""})`);
  if (whole.length > MAX_DESCRIPTION_CHARS) reasons.push(`is over ${MAX_DESCRIPTION_CHARS.toLocaleString("en")} characters (${whole.length.toLocaleString("en")})`);
  return reasons;
}

const VERB = String.raw`\b(?:ignore|disregard|forget|override|bypass|skip)\b`;
const WORDS = (most: number) => String.raw`(?:[\s,]+[\w'-]+){0,${most}}?`;
const WHOSE = String.raw`\b(?:previous|prior|above|earlier|preceding|all|any|other|system|your)\b`;
const WHAT = String.raw`\b(?:instructions?|prompts?|rules|directions|guidelines|guardrails|messages|context|constraints)\b`;
/** "Ignore (all) previous instructions", "disregard any rules you were given". */
const IGNORE = new RegExp(`${VERB}${WORDS(3)}[\\s,]+${WHOSE}${WORDS(2)}[\\s,]+${WHAT}`, "i");
/** "Forget your system prompt", "ignore the instructions". */
const FORGET = new RegExp(String.raw`${VERB}\s+(?:the\s+|your\s+)?(?:system\s+prompt|instructions)\b`, "i");
const TELL = "(?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|show|showing|notify|notifying|alert|alerting|warn|warning|let)";
const PERSON = String.raw`\b(?:the\s+)?(?:user|user's|human|person|operator)\b`;
/** "Do not tell the user", "never mention this to the user", "hide it from the user", "without the user knowing", "secretly". */
const HIDE: readonly RegExp[] = [
  new RegExp(String.raw`\b(?:do\s+not|don't|dont|never|must\s+not|without)\s+(?:\w+\s+){0,2}?${TELL}\b[^.!?\n]{0,40}?${PERSON}`, "i"),
  new RegExp(String.raw`\b(?:hide|conceal|withhold|keep)\b[^.!?\n]{0,40}?\bfrom\s+${PERSON}`, "i"),
  /\bwithout\s+the\s+(?:user|human|person)(?:'s)?\s+(?:knowing|knowledge|noticing|consent)\b/i,
  /\bsecretly\b/i,
];
/** Tags written to the model, as tool-poisoning examples use: `<IMPORTANT>`, `<system>`. */
const TAG = /<\s*\/?\s*(?:important|system|instructions?|secret|hidden)\s*>/i;
/** Zero-width characters, bidi controls, invisible operators and tag characters (U+E0000–U+E007F). */
const INVISIBLE = /[\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]|\u{E0000}|[\u{E0001}-\u{E007F}]/gu;
/** A character no plain word has: a token with one (`read_file`, `s3-upload`) names a tool wherever it appears. */
const NOT_PLAIN = /[\d_-]/g;
/** A plain word where it is called: "call NAME", "use the NAME", "via NAME". */
const CALLED = /\b(?:call|calls|calling|invoke|invokes|invoking|execute|executes|executing|use|run|via)\s+(?:the\s+)?([A-Za-z]+)\b/gi;
/** "the NAME tool": the word before is the name. */
const TOOL_WORD = /\btools?\b/gi;
const WORD_BEFORE = /([A-Za-z]+)\s+$/;

/** The tools of `others` the text names, in the order first found: one whose name is not a plain word wherever it appears, a plain word (`bash`) only where it is called. */
function namedTools(text: string, others: ReadonlySet<string>): string[] {
  if (others.size === 0) return [];
  const named = new Map<string, number>();
  const found = (name: string, at: number) => {
    if (others.has(name) && !named.has(name)) named.set(name, at);
  };
  // The tokens around each character no plain word has, each read once (cheaper than splitting the text into words).
  for (let end = 0, match = next(NOT_PLAIN, text, 0); match !== undefined; match = next(NOT_PLAIN, text, end)) {
    let start = match;
    while (start > 0 && isTokenChar(text.charCodeAt(start - 1))) start--;
    end = match + 1;
    while (end < text.length && isTokenChar(text.charCodeAt(end))) end++;
    found(text.slice(start, end), start);
  }
  for (const call of text.matchAll(CALLED)) found(call[1] ?? "", call.index);
  for (const tool of text.matchAll(TOOL_WORD)) {
    const before = WORD_BEFORE.exec(text.slice(Math.max(0, tool.index - 70), tool.index));
    if (before?.[1] !== undefined) found(before[1], tool.index - before[0].length);
  }
  return [...named].sort(([, a], [, b]) => a - b).map(([name]) => name);
}

/** Where `pattern` (global) next matches from `from`, or undefined. */
function next(pattern: RegExp, text: string, from: number): number | undefined {
  pattern.lastIndex = from;
  return pattern.exec(text)?.index;
}

/** A letter, digit, `_` or `-`: what tool names are made of. */
function isTokenChar(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 45;
}

/** The text the first of `patterns` that matches matched. */
function firstMatch(patterns: readonly RegExp[], text: string): string | undefined {
  for (const pattern of patterns) {
    const found = pattern.exec(text);
    if (found !== null) return found[0];
  }
  return undefined;
}

/** The words quoted as a reason, on one line, cut at 60 characters, their control characters written out (they reach a terminal). */
function quote(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return `"${visible(line.length > 60 ? `${line.slice(0, 59)}…` : line)}"`;
}

function codePoint(char: string): string {
  return `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}
