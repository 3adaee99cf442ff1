import { describe, expect, test } from "bun:test";
import { markdownRenderer, markdownStream } from "./markdown.ts";

const render = markdownRenderer({ columns: 80, colour: false });

/** What `markdownStream` shows after each piece: the pieces fed one at a time. */
function shown(pieces: readonly string[]): string[] {
  const stream = markdownStream((markdown) => `[${markdown}]`);
  return [...pieces.map((piece) => stream.push(piece)), stream.end()];
}

describe("an answer streamed a block at a time", () => {
  test("a block shows once the next block has a whole line, not before", () => {
    expect(shown(["Intro.\n", "\nSecond", " para", "graph.\n", "More.\n"])).toEqual(["", "", "", "[Intro.\n\n]", "", "[Second paragraph.\nMore.\n]"]);
  });

  test("a paragraph that becomes a table is held until it is one", () => {
    const pieces = ["Hi.\n\n", "| a | b |\n", "| - | - |\n", "| 1 | 2 |\n", "\nBye.\n"];
    const out = shown(pieces);
    expect(out.slice(0, 2)).toEqual(["", "[Hi.\n\n]"]);
    expect(out.slice(2, 4)).toEqual(["", ""]);
    expect(out[4]).toBe("[| a | b |\n| - | - |\n| 1 | 2 |\n\n]");
  });

  test("the pieces rendered add up to the whole answer rendered", () => {
    const answer = "# T\n\nSome **bold**.\n\n- one\n- two\n\n```js\nconst x = 1;\n```\n\nEnd.";
    const stream = markdownStream(render);
    let out = "";
    for (const char of answer) out += stream.push(char);
    out += stream.end();
    expect(out).toBe(render(answer).replace(/\n+$/, "\n"));
  });
});
