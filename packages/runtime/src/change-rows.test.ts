import { describe, expect, test } from "bun:test";
import { changeRows, HEAD_LINES, headRows, MAX_ROW_CHARS, MAX_ROWS } from "./change-rows.ts";

const numbered = (count: number, from = 1) => Array.from({ length: count }, (_, i) => `line ${from + i}`);

describe("changeRows", () => {
  test("an edit's texts: removed, then added", () => {
    expect(changeRows("beta", "gamma")).toEqual([
      { kind: "removed", text: "beta" },
      { kind: "added", text: "gamma" },
    ]);
  });

  test("a change in a long file shows three lines around it and counts the rest", () => {
    const old = `${numbered(100).join("\n")}\n`;
    const rows = changeRows(old, old.replace("line 50\n", "fifty\n"));
    expect(rows).toEqual([
      { kind: "skipped", text: "46 unchanged lines" },
      ...numbered(3, 47).map((text) => ({ kind: "kept" as const, text })),
      { kind: "removed", text: "line 50" },
      { kind: "added", text: "fifty" },
      ...numbered(3, 51).map((text) => ({ kind: "kept" as const, text })),
      { kind: "skipped", text: "47 unchanged lines" },
    ]);
  });

  test("a whole file rewritten is cut after MAX_ROWS rows, and says how many more", () => {
    const rows = changeRows(numbered(100).join("\n"), numbered(100, 1000).join("\n"));
    expect(rows).toHaveLength(MAX_ROWS + 1);
    expect(rows.at(-1)).toEqual({ kind: "skipped", text: "160 more lines of the diff" });
  });

  test("texts too different to compare cheaply: the rows say all is replaced, and show the new text's head", () => {
    const rows = changeRows(numbered(3000).join("\n"), numbered(3000, 5000).join("\n"));
    expect(rows[0]).toEqual({ kind: "skipped", text: "replaces all 3000 lines" });
    expect(rows.slice(1)).toEqual(headRows(numbered(3000, 5000).join("\n")));
    expect(rows.at(-1)).toEqual({ kind: "skipped", text: "2980 more lines" });
  });

  test("the limit is on lines added and removed, repeats counted: 2000 removed are still a diff, 2001 are all replaced", () => {
    const diffed = changeRows("same\n".repeat(3000), "same\n".repeat(1000));
    expect(diffed[0]).toEqual({ kind: "skipped", text: "997 unchanged lines" });
    expect(diffed.at(-1)).toEqual({ kind: "skipped", text: "1964 more lines of the diff" });
    expect(changeRows("same\n".repeat(3000), "same\n".repeat(999))[0]).toEqual({ kind: "skipped", text: "replaces all 3000 lines" });
  });

  test("a very long line is cut", () => {
    const [row] = changeRows("", "x".repeat(10_000));
    expect(row).toEqual({ kind: "added", text: `${"x".repeat(MAX_ROW_CHARS)}…` });
  });
});

test("headRows: the first HEAD_LINES lines of a new file and how many more", () => {
  const rows = headRows(`${numbered(50).join("\n")}\n`);
  expect(rows).toEqual([...numbered(HEAD_LINES).map((text) => ({ kind: "added" as const, text })), { kind: "skipped", text: "30 more lines" }]);
  expect(headRows("one\ntwo")).toEqual([
    { kind: "added", text: "one" },
    { kind: "added", text: "two" },
  ]);
});
