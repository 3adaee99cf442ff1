/**
 * What the bytes a terminal sends in raw mode mean to the message editor. Bun's
 * `node:readline` decodes a bracketed paste's markers but still ends the line at each line
 * break inside it, and splits xterm's Shift+Enter (`ESC[27;2;13~`) into garbage; this
 * decoder knows both. One chunk is what one read returned: a line break followed by more in
 * the same chunk was pasted (a person's Enter arrives alone, or last), so it is a newline in
 * the message, not a send.
 */

/** A key, or text (typed, or pasted with its line breaks as `\n`). */
export type Key = { readonly kind: "text"; readonly text: string } | { readonly kind: KeyName };

export type KeyName =
  | "enter"
  | "newline"
  | "backspace"
  | "delete"
  | "left"
  | "right"
  | "up"
  | "down"
  | "home"
  | "end"
  | "interrupt"
  | "eof"
  | "kill-to-start"
  | "kill-to-end"
  | "kill-word";

const ESC = "\u001b";
const PASTE_START = `${ESC}[200~`;
const PASTE_END = `${ESC}[201~`;

/** Ctrl-letter keys (their byte) that edit. */
const CONTROL: Readonly<Record<string, KeyName>> = {
  "\u0001": "home",
  "\u0002": "left",
  "\u0003": "interrupt",
  "\u0004": "eof",
  "\u0005": "end",
  "\u0006": "right",
  "\u0008": "backspace",
  "\n": "newline",
  "\u000b": "kill-to-end",
  "\u000e": "down",
  "\u0010": "up",
  "\u0015": "kill-to-start",
  "\u0017": "kill-word",
  "\u007f": "backspace",
};

/** The final byte of a CSI or SS3 sequence without parameters that matter. */
const FINAL: Readonly<Record<string, KeyName>> = { A: "up", B: "down", C: "right", D: "left", H: "home", F: "end", M: "enter" };

/** `ESC[N~` keys. */
const TILDE: Readonly<Record<string, KeyName>> = { "1": "home", "7": "home", "4": "end", "8": "end", "3": "delete" };

/**
 * A decoder keeping what spans chunks: a bracketed paste not yet ended, an escape sequence
 * cut in two.
 */
export function createKeyDecoder(): (chunk: string) => Key[] {
  let pasted: string | undefined;
  let pending = "";
  const decode = (input: string): Key[] => {
    if (pasted !== undefined) {
      pasted += input;
      const end = pasted.indexOf(PASTE_END);
      if (end === -1) return [];
      const text = lineBreaks(pasted.slice(0, end));
      const rest = pasted.slice(end + PASTE_END.length);
      pasted = undefined;
      return [...(text === "" ? [] : [{ kind: "text", text } as const]), ...decode(rest)];
    }
    const keys: Key[] = [];
    let text = "";
    const flush = () => {
      if (text !== "") keys.push({ kind: "text", text });
      text = "";
    };
    for (let i = 0; i < input.length; ) {
      const char = input.charAt(i);
      if (input.startsWith(PASTE_START, i)) {
        flush();
        pasted = "";
        return [...keys, ...decode(input.slice(i + PASTE_START.length))];
      }
      if (char === ESC) {
        const sequence = escapeSequence(input, i);
        if (sequence === undefined) {
          pending = input.slice(i);
          break;
        }
        flush();
        if (sequence.key) keys.push({ kind: sequence.key });
        i += sequence.length;
        continue;
      }
      if (char === "\r") {
        flush();
        keys.push({ kind: "enter" });
        i += input.charAt(i + 1) === "\n" ? 2 : 1;
        continue;
      }
      const control = CONTROL[char];
      if (control) {
        flush();
        keys.push({ kind: control });
      } else if (char === "\t" || char >= " ") text += char;
      i++;
    }
    flush();
    return keys;
  };
  return (chunk) => {
    const input = pending + chunk;
    pending = "";
    return withinChunk(decode(input));
  };
}

/** A paste's line breaks (CR, CRLF or LF) as `\n`. */
function lineBreaks(text: string): string {
  return text.replace(/\r\n?/g, "\n");
}

/**
 * The chunk rule: an Enter followed by more keys of the same chunk came with them in one
 * read — a paste, not a person's key press — and is a newline.
 */
function withinChunk(keys: Key[]): Key[] {
  return keys.map((key, index) => (key.kind === "enter" && index < keys.length - 1 ? { kind: "newline" } : key));
}

/**
 * The escape sequence at `i`: its length and key (none for keys the editor ignores), or
 * undefined when the chunk ends inside it.
 */
function escapeSequence(input: string, i: number): { length: number; key?: KeyName } | undefined {
  const next = input.charAt(i + 1);
  // A lone Escape key.
  if (next === "") return { length: 1 };
  // Alt+Enter.
  if (next === "\r" || next === "\n") return { length: 2, key: "newline" };
  if (next === "O") {
    const final = input.charAt(i + 2);
    if (final === "") return undefined;
    const key = FINAL[final];
    return key ? { length: 3, key } : { length: 3 };
  }
  if (next !== "[") return { length: 2 };
  const match = /^[0-9;:?]*/.exec(input.slice(i + 2));
  const params = match?.[0] ?? "";
  const final = input.charAt(i + 2 + params.length);
  if (final === "") return undefined;
  const length = 3 + params.length;
  const [first, modifiers] = params.split(";");
  // Shift/Ctrl+Enter: CSI u (`ESC[13;2u`) and xterm's modifyOtherKeys (`ESC[27;2;13~`).
  if (final === "u" && first === "13") return { length, key: modifiers === undefined ? "enter" : "newline" };
  if (final === "~" && first === "27" && params.endsWith(";13")) return { length, key: "newline" };
  if (final === "~") {
    const key = first === undefined ? undefined : TILDE[first];
    return key ? { length, key } : { length };
  }
  const key = FINAL[final];
  return key && key !== "enter" ? { length, key } : { length };
}
