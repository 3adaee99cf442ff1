import { expect, test } from "bun:test";
import { changeLine, listedTools, manifestDescription, toolChanges } from "./tool-list.ts";

test.each([
  ["Find files by glob pattern. Returns matching paths, sorted.", "Find files by glob pattern."],
  ["Replace text in a UTF-8 text file. old_text must match exactly one place.", "Replace text in a UTF-8 text file."],
  ["Count the words\n  of a file.\nThen say so.", "Count the words of a file."],
  ["Show a list, e.g. the files. Then stop.", "Show a list, e.g. the files."],
  ["The result ends with `... (N more lines)` when lines remain. More.", "The result ends with `... (N more lines)` when lines remain."],
  ["Is it there? Say so.", "Is it there?"],
  ["Run version 1.2 of it", "Run version 1.2 of it"],
  ["  Spaces around.  ", "Spaces around."],
])("the manifest describes %p as %p", (description, line) => {
  expect(manifestDescription(description)).toBe(line);
});

test("changes from the manifest's tools to the code's: added, changed, removed, then the order", () => {
  const manifest = [
    { name: "a", description: "A." },
    { name: "b", description: "B." },
    { name: "gone", description: "Gone." },
    { name: "c", description: "C." },
  ];
  const code = [
    { name: "c", description: "C." },
    { name: "a", description: "A, better." },
    { name: "new", description: "New." },
    { name: "b", description: "B." },
  ];
  expect(toolChanges(manifest, code).map(changeLine)).toEqual([
    'changed the description of a: "A." → "A, better."',
    'added new: "New."',
    "removed gone",
    "reordered: c, a, b (was a, b, c)",
  ]);
  expect(toolChanges(code, code)).toEqual([]);
});

test("a manifest's tools that are not { name, description } strings are left out", () => {
  expect(listedTools([{ name: "a", description: "A." }, { name: "b" }, "c", null])).toEqual([{ name: "a", description: "A." }]);
  expect(listedTools({ name: "a" })).toEqual([]);
});
