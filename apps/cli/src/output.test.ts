import { describe, expect, test } from "bun:test";
import { createStyle, keepTail, outputTail, TAIL_LINES, traceLine } from "./output.ts";

describe("createStyle", () => {
  test.each([
    [true, {}, true],
    [true, { NO_COLOR: "1" }, false],
    [true, { NO_COLOR: "" }, true],
    [false, {}, false],
  ])("isTTY %p with env %p colours: %p", (isTTY, env, coloured) => {
    const style = createStyle({ isTTY }, env);
    expect(style.tool("x") !== "x").toBe(coloured);
    expect(style.error("x") !== "x").toBe(coloured);
  });
});

describe("traceLine", () => {
  const plain = createStyle({ isTTY: false }, {});

  test("shows the tool, its arguments and the result on one line", () => {
    const line = traceLine({ name: "read_file", arguments: '{"path":"a.md"}', content: "# A\nb\n", isError: false }, plain);
    expect(line).toBe('[tool] read_file {"path":"a.md"} → # A⏎b⏎');
  });

  test("writes out the control characters of a result (a file's, a command's): the terminal shows them, obeys none", () => {
    const content = "title\u001b]0;owned\u0007 clear\u001b[2J\r\nnext\u009b";
    const line = traceLine({ name: "read_file", arguments: '{"path":"a"}', content, isError: false }, plain);
    expect(line).toBe('[tool] read_file {"path":"a"} → title\\x1b]0;owned\\x07 clear\\x1b[2J⏎next\\x9b');
    for (const char of ["\u001b", "\u0007", "\u009b", "\r"]) expect(line).not.toContain(char);
  });

  test("keeps only the first 200 characters of the result and of the arguments", () => {
    const long = "x".repeat(500);
    const line = traceLine({ name: "bash", arguments: JSON.stringify({ command: long }), content: long, isError: true }, plain);
    const [args, result] = line.replace("[tool] bash ", "").split(" → ");
    expect(result).toBe(`${"x".repeat(200)}…`);
    expect(args).toBe(`${`{"command":"${long}`.slice(0, 200)}…`);
  });
});

describe("outputTail", () => {
  test("the last lines, indented, each cut to the width, a redrawn line as it ended", () => {
    const text = "one\ntwo\nthree\n10%\r50%\r100%\n\ttabbed\n";
    expect(outputTail(text, 80)).toEqual(["  two", "  three", "  100%", "    tabbed"]);
    expect(outputTail(`${"x".repeat(100)}\n`, 20)).toEqual([`  ${"x".repeat(16)}…`]);
    // Wide characters count as the two columns they take.
    expect(outputTail(`${"字".repeat(20)}\n`, 20)).toEqual([`  ${"字".repeat(8)}…`]);
    expect(outputTail("a\nb\nc\nd\ne", 80)).toHaveLength(TAIL_LINES);
  });

  test("control characters are written out, never passed to the terminal", () => {
    expect(outputTail("clear\u001b[2J title\u001b]0;x\u0007\n", 80)).toEqual(["  clear\\x1b[2J title\\x1b]0;x\\x07"]);
  });

  test("keepTail keeps only the end of a long output", () => {
    const kept = keepTail("a".repeat(10_000), "\nlast\n");
    expect(kept.length).toBeLessThan(10_000);
    expect(outputTail(kept, 80).at(-1)).toBe("  last");
  });
});
