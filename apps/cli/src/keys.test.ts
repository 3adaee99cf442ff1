import { describe, expect, test } from "bun:test";
import { createKeyDecoder, type Key } from "./keys.ts";

const ESC = "\u001b";
const text = (value: string): Key => ({ kind: "text", text: value });

/** Decodes `chunks` in order, as reads from one terminal. */
function decode(...chunks: string[]): Key[][] {
  const decoder = createKeyDecoder();
  return chunks.map((chunk) => decoder(chunk));
}

describe("the key decoder", () => {
  test("a read that ends with Enter sends; a line break followed by more in the same read is a new line", () => {
    expect(decode("hi", "\r")).toEqual([[text("hi")], [{ kind: "enter" }]]);
    expect(decode("a\rb\r\nc\r")).toEqual([[text("a"), { kind: "newline" }, text("b"), { kind: "newline" }, text("c"), { kind: "enter" }]]);
  });

  test("a bracketed paste is one text, its line breaks as \\n, even across reads and with its end marker cut in two", () => {
    expect(decode(`${ESC}[200~one\r\r\nthree\nfour${ESC}[201~\r`)).toEqual([[text("one\n\nthree\nfour"), { kind: "enter" }]]);
    expect(decode(`x${ESC}[200~a\r`, "b", `${ESC}[20`, `1~y`)).toEqual([[text("x")], [], [], [text("a\nb"), text("y")]]);
  });

  test("Alt+Enter, Shift/Ctrl+Enter (CSI u, modifyOtherKeys) and Ctrl-J are new lines; plain CSI u Enter sends", () => {
    for (const keys of [`${ESC}\r`, `${ESC}[13;2u`, `${ESC}[13;5u`, `${ESC}[27;2;13~`, "\n"]) expect(decode(keys)).toEqual([[{ kind: "newline" }]]);
    expect(decode(`${ESC}[13u`)).toEqual([[{ kind: "enter" }]]);
  });

  test("an escape sequence cut between reads is decoded whole; unknown ones are dropped, not typed", () => {
    expect(decode(`a${ESC}[`, "1;5D")).toEqual([[text("a")], [{ kind: "left" }]]);
    expect(decode(`${ESC}[27;2;`, "13~")).toEqual([[], [{ kind: "newline" }]]);
    expect(decode(`${ESC}[15~b${ESC}[3~`)).toEqual([[text("b"), { kind: "delete" }]]);
  });
});
