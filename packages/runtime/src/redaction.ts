/**
 * Secrets never reach the model: before a result is sent to it, the values of the app's
 * secrets (handed in by the app as names and values) and the well-known key formats
 * (`key-formats.ts`) are replaced by `[redacted: NAME]`. Overlapping finds become one
 * placeholder, so no part of a secret is left beside it; nor beside a cut (a capped output, a
 * line cut short), where a secret cut in two leaves its head before the mark or its tail after it.
 */
import { CUT_MARK } from "@plugboard/core";
import { KEY_FORMATS, MIN_TOKEN_LENGTH, PEM_BODY_LINE, PEM_NAME, PEM_PATTERN, TOKEN_CLASS } from "./key-formats.ts";

/** One secret of the app: the name its placeholder shows, and the value the model must never read. */
export interface Secret {
  readonly name: string;
  readonly value: string;
}

/** A value shorter than this is never redacted: it would hide ordinary words, and guessing it is no feat. */
const MIN_SECRET_LENGTH = 8;

/**
 * The shortest head or tail of a secret value redacted beside a cut mark: shorter ones say
 * little of the secret and would take ordinary words that happen to start one.
 */
const MIN_CUT_PART = 4;

/**
 * The fewest characters after a well-known prefix that make a head before a cut mark a token's:
 * `sk-learn` before a cut stays a word.
 */
const MIN_TOKEN_HEAD = 8;

/** What every placeholder starts with. */
export const REDACTED_MARK = "[redacted:";

/** The names a variable holding a secret has in it (case-insensitive). */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|AUTH/i;

/**
 * Whether a variable's name says it holds a secret: it has KEY, TOKEN, SECRET, PASSWORD or
 * AUTH in it, in any case (`DB_PASSWORD`, `github_token`, `X-Auth-Token`).
 */
export function namesSecret(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * The secrets among a `.env` file's variables: those whose names say KEY, TOKEN, SECRET,
 * PASSWORD or AUTH, with values of at least 8 characters.
 *
 * @example secretsOfEnv({ DB_PASSWORD: "hunter2hunter2", PORT: "8080" }) // [{ name: "DB_PASSWORD", value: "hunter2hunter2" }]
 */
export function secretsOfEnv(variables: Readonly<Record<string, string>>): Secret[] {
  return Object.entries(variables)
    .filter(([name, value]) => namesSecret(name) && value.length >= MIN_SECRET_LENGTH)
    .map(([name, value]) => ({ name, value }));
}

/** A text as the model may read it, and how many secrets were taken out of it. */
export interface Redacted {
  readonly text: string;
  readonly count: number;
}

interface Found {
  start: number;
  end: number;
  name: string;
}

/** Whether each UTF-16 code unit is a token's character (all are ASCII). */
const TOKEN = new Uint8Array(65536);
const TOKEN_CHARACTER = new RegExp(`[${TOKEN_CLASS}]`);
for (let code = 0; code < 128; code++) TOKEN[code] = TOKEN_CHARACTER.test(String.fromCharCode(code)) ? 1 : 0;

/**
 * Replaces secrets in texts. Values under 8 characters are ignored; a value is also found as
 * JSON writes it inside a string (a tool that prints JSON). Everything is compiled once, and a
 * text is read in three passes: the app's values (one alternation, which the regular-expression
 * engine scans at memory speed), PEM blocks (anchored on their dashes), and the runs of token
 * characters long enough to be a key, each tried against the token formats at once. One
 * alternation of every format over the whole text would be tried at every character: several
 * times slower.
 *
 * @example new Redactor([{ name: "DB_PASSWORD", value: "hunter2hunter2" }]).redact("pw=hunter2hunter2") // { text: "pw=[redacted: DB_PASSWORD]", count: 1 }
 */
export class Redactor {
  readonly #values = new Map<string, string>();
  #literal: RegExp | undefined;
  readonly #pem = new RegExp(PEM_PATTERN, "g");
  readonly #cutMark = new RegExp(CUT_MARK.source, "g");
  // Sticky at a run's start; the run must end where the token does.
  readonly #token = new RegExp(`(?:${KEY_FORMATS.map(({ pattern }) => `(${pattern})`).join("|")})(?![${TOKEN_CLASS}])`, "y");
  // A token's head cut short right before a cut mark: its prefix and at least MIN_TOKEN_HEAD more, from a run's start to the mark.
  readonly #tokenHead = new RegExp(`(?<![${TOKEN_CLASS}])(?:${KEY_FORMATS.map(({ prefix }) => `(${prefix})`).join("|")})[${TOKEN_CLASS}]{${MIN_TOKEN_HEAD},}$`);

  constructor(secrets: readonly Secret[] = []) {
    this.add(secrets);
  }

  /** Replaces `secrets` too from now on (a token refreshed during the session). */
  add(secrets: readonly Secret[]): void {
    const values = this.#values;
    for (const { name, value } of secrets) {
      for (const form of [value, JSON.stringify(value).slice(1, -1)]) {
        if (form.length >= MIN_SECRET_LENGTH && !values.has(form)) values.set(form, name);
      }
    }
    // Longest first: where two values start at one place, the longer is the one replaced.
    const literal = [...values.keys()].sort((a, b) => b.length - a.length).map((value) => RegExp.escape(value));
    this.#literal = literal.length === 0 ? undefined : new RegExp(literal.join("|"), "g");
  }

  /** `text` with every secret in it replaced by `[redacted: NAME]`, and how many were. */
  redact(text: string): Redacted {
    const found: Found[] = [];
    this.#findValues(text, found);
    this.#findPem(text, found);
    this.#findTokens(text, found);
    this.#findCutParts(text, found);
    if (found.length === 0) return { text, count: 0 };
    found.sort((a, b) => a.start - b.start);
    const merged: Found[] = [];
    for (const next of found) add(merged, next);
    let redacted = "";
    let at = 0;
    for (const { start, end, name } of merged) {
      redacted += `${text.slice(at, start)}${REDACTED_MARK} ${name}]`;
      at = end;
    }
    return { text: redacted + text.slice(at), count: merged.length };
  }

  /**
   * A JSON value (a structured result, a tool's schema) with every string in it redacted, its
   * objects' keys too (the model reads them as it reads the values), and how many secrets were.
   * Two keys that redact alike are both kept: the second and later get ` #2`, ` #3`, ….
   */
  redactValue<T>(value: T): { readonly value: T; readonly count: number } {
    let count = 0;
    const text = (each: string): string => {
      const redacted = this.redact(each);
      count += redacted.count;
      return redacted.text;
    };
    const walk = (each: unknown): unknown => {
      if (typeof each === "string") return text(each);
      if (Array.isArray(each)) return each.map(walk);
      if (typeof each !== "object" || each === null) return each;
      const walked: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(each)) {
        const redacted = text(key);
        let name = redacted;
        for (let n = 2; Object.hasOwn(walked, name); n++) name = `${redacted} #${n}`;
        // Defined, not assigned: a `__proto__` key stays a key, as JSON.parse made it.
        Object.defineProperty(walked, name, { value: walk(inner), enumerable: true, writable: true, configurable: true });
      }
      return walked;
    };
    const walked = walk(value);
    return { value: count === 0 ? value : (walked as T), count };
  }

  #findValues(text: string, found: Found[]): void {
    const literal = this.#literal;
    if (literal === undefined) return;
    literal.lastIndex = 0;
    for (let match = literal.exec(text); match !== null; match = literal.exec(text)) {
      found.push({ start: match.index, end: match.index + match[0].length, name: this.#values.get(match[0]) ?? "secret" });
      // From the next character on, not from the end: a value that starts inside this one and ends beyond it is found too.
      literal.lastIndex = match.index + 1;
    }
  }

  /**
   * Beside each cut mark (`CUT_MARK`), the longest head of a value (at least `MIN_CUT_PART`
   * characters) that the text before it ends with, and the longest tail one the text after it starts with.
   */
  #findCutParts(text: string, found: Found[]): void {
    const cutMark = this.#cutMark;
    cutMark.lastIndex = 0;
    for (let match = cutMark.exec(text); match !== null; match = cutMark.exec(text)) {
      const before = match.index;
      const after = match.index + match[0].length;
      let head = this.#tokenHeadBefore(text, before);
      let tail: Found | undefined;
      for (const [value, name] of this.#values) {
        for (let length = Math.min(value.length - 1, before); length >= MIN_CUT_PART && length > (head === undefined ? 0 : head.end - head.start); length--) {
          if (value.charCodeAt(length - 1) === text.charCodeAt(before - 1) && text.startsWith(value.slice(0, length), before - length)) head = { start: before - length, end: before, name };
        }
        for (let length = Math.min(value.length - 1, text.length - after); length >= MIN_CUT_PART && length > (tail === undefined ? 0 : tail.end - tail.start); length--) {
          if (value.charCodeAt(value.length - length) === text.charCodeAt(after) && text.startsWith(value.slice(-length), after)) tail = { start: after, end: after + length, name };
        }
      }
      if (head !== undefined) found.push(head);
      if (tail !== undefined) found.push(tail);
      // The next line may start at this one's closing newline.
      cutMark.lastIndex = after - 1;
    }
  }

  /** A well-known token's head that the text before `end` ends with (its prefix and at least `MIN_TOKEN_HEAD` more): the token was cut there. */
  #tokenHeadBefore(text: string, end: number): Found | undefined {
    // The run of token characters before the mark is all a head can be: a bounded look back.
    const start = Math.max(0, end - 300);
    const match = this.#tokenHead.exec(text.slice(start, end));
    if (match === null) return undefined;
    const format = KEY_FORMATS[match.findIndex((part, index) => index > 0 && part !== undefined) - 1];
    return { start: start + match.index, end, name: format?.name ?? "token" };
  }

  #findPem(text: string, found: Found[]): void {
    const pem = this.#pem;
    pem.lastIndex = 0;
    for (let match = pem.exec(text); match !== null; match = pem.exec(text)) {
      const start = match[1] === undefined ? bodyStart(text, match.index) : match.index;
      // An end marker with no base64 line before it holds no key.
      if (start === match.index && match[1] === undefined) continue;
      found.push({ start, end: match.index + match[0].length, name: PEM_NAME });
    }
  }

  /**
   * The runs of token characters at least `MIN_TOKEN_LENGTH` long that are a key. Only every
   * `MIN_TOKEN_LENGTH`-th character is looked at first: a run that long covers one of them.
   */
  #findTokens(text: string, found: Found[]): void {
    const length = text.length;
    for (let at = MIN_TOKEN_LENGTH - 1; at < length; at += MIN_TOKEN_LENGTH) {
      if (TOKEN[text.charCodeAt(at)] !== 1) continue;
      let start = at;
      while (start > 0 && TOKEN[text.charCodeAt(start - 1)] === 1) start--;
      let end = at + 1;
      while (end < length && TOKEN[text.charCodeAt(end)] === 1) end++;
      // The next look is past this run.
      at = end - 1;
      if (end - start < MIN_TOKEN_LENGTH) continue;
      this.#token.lastIndex = start;
      const match = this.#token.exec(text);
      if (match === null) continue;
      const format = KEY_FORMATS[match.findIndex((part, index) => index > 0 && part !== undefined) - 1];
      found.push({ start, end, name: format?.name ?? "key" });
    }
  }
}

/** Where the lines of base64 that end at `end` (a lone PEM end marker) start. */
function bodyStart(text: string, end: number): number {
  let start = end;
  while (start > 0 && text.charAt(start - 1) === "\n") {
    const line = text.lastIndexOf("\n", start - 2) + 1;
    if (!PEM_BODY_LINE.test(text.slice(line, start - 1))) break;
    start = line;
  }
  return start;
}

/** Adds a find to finds sorted by start, merged with those it overlaps (the earliest one's name kept). */
function add(found: Found[], next: Found): void {
  let last = found.at(-1);
  while (last !== undefined && next.start < last.end) {
    found.pop();
    next = { start: Math.min(last.start, next.start), end: Math.max(last.end, next.end), name: last.start <= next.start ? last.name : next.name };
    last = found.at(-1);
  }
  found.push(next);
}
