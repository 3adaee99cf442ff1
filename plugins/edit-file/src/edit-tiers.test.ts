import { afterAll, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pluginRuntime } from "@plugboard/testing";
import plugin from "./index.ts";

const root = await mkdtemp(join(tmpdir(), "plugboard-edit-tiers-"));
afterAll(() => rm(root, { recursive: true, force: true }));

interface Case {
  readonly name: string;
  readonly file: string;
  readonly old_text: string;
  readonly new_text: string;
  readonly replace_all?: boolean;
  /** The result's text, with `F` for the file's name. */
  readonly result: string;
  /** The file afterwards; the same as before when omitted. */
  readonly after?: string;
}

const edited = (count: number, tier?: string) => `Edited F (${count} ${count === 1 ? "replacement" : "replacements"})${tier ? `\nMatched ignoring ${tier}` : ""}`;
const ambiguous = (count: number, tier: string) =>
  `Error: old_text matches ${count} places in F when ignoring ${tier}; add surrounding lines to make it unique`;
const NOT_FOUND = "Error: old_text not found in F; read the file again to see its current content";

const CASES: readonly Case[] = [
  // exact
  { name: "exact, unique", file: "a\nb\n", old_text: "b", new_text: "c", result: edited(1), after: "a\nc\n" },
  {
    name: "exact, ambiguous",
    file: "x\nx\n",
    old_text: "x",
    new_text: "y",
    result: "Error: old_text matches 2 places in F; add surrounding lines to make it unique, or set replace_all to true",
  },
  { name: "exact, replace_all", file: "x x\n", old_text: "x", new_text: "y", replace_all: true, result: edited(2), after: "y y\n" },
  { name: "exact wins over a tolerant match elsewhere", file: "a  \na\n", old_text: "a\n", new_text: "b\n", result: edited(1), after: "a  \nb\n" },
  { name: "replace_all uses exact matches only", file: "  foo   \n", old_text: "  foo\n", new_text: "bar\n", replace_all: true, result: NOT_FOUND },
  { name: "not found", file: "a\n", old_text: "zzz", new_text: "y", result: NOT_FOUND },
  { name: "whitespace-only old_text is exact only", file: "a\n\t\nb\n", old_text: "  \n", new_text: "x", result: NOT_FOUND },
  // 1: trailing whitespace
  {
    name: "trailing whitespace, unique",
    file: "if (a) {   \n  b();\t\n}\n",
    old_text: "if (a) {\n  b();\n}",
    new_text: "if (a) {\n  c();\n}",
    result: edited(1, "trailing whitespace"),
    after: "if (a) {\n  c();\n}\n",
  },
  { name: "trailing whitespace, ambiguous", file: "x  \ny\nx \ny\n", old_text: "x\ny", new_text: "z", result: ambiguous(2, "trailing whitespace") },
  // 2: indentation
  {
    name: "indentation, unique: new_text re-indented, its relative indentation kept",
    file: "class A {\n    run() {\n        go();\n    }\n}\n",
    old_text: "run() {\n    go();\n}",
    new_text: "run() {\n    stop();\n    go();\n}",
    result: edited(1, "indentation"),
    after: "class A {\n    run() {\n        stop();\n        go();\n    }\n}\n",
  },
  {
    name: "indentation, tabs in the file",
    file: "\tif (x) {\n\t\ty();\n\t}\n",
    old_text: "if (x) {\n\ty();\n}",
    new_text: "if (x) {\n\tz();\n}",
    result: edited(1, "indentation"),
    after: "\tif (x) {\n\t\tz();\n\t}\n",
  },
  {
    name: "indentation, ambiguous",
    file: "\tfoo();\n\tbar();\n  foo();\n  bar();\n",
    old_text: "    foo();\n    bar();",
    new_text: "baz();",
    result: ambiguous(2, "indentation"),
  },
  // 3: runs of whitespace within lines
  {
    name: "whitespace within lines, unique",
    file: "const  x =   1;\nnext();\n",
    old_text: "const x = 1;",
    new_text: "const x = 2;",
    result: edited(1, "whitespace within lines"),
    after: "const x = 2;\nnext();\n",
  },
  { name: "whitespace within lines, ambiguous", file: "a  = 1\nb\na =  1\nb\n", old_text: "a = 1\nb", new_text: "c", result: ambiguous(2, "whitespace within lines") },
  { name: "never across a different number of lines", file: "foo(a,\n    b)\n", old_text: "foo(a, b)", new_text: "bar()", result: NOT_FOUND },
  // line endings and BOM
  { name: "CRLF file, LF single line", file: "a\r\nb\r\n", old_text: "b", new_text: "c", result: edited(1), after: "a\r\nc\r\n" },
  {
    name: "CRLF file, LF multi-line old and new",
    file: "a\r\nb\r\nc\r\n",
    old_text: "a\nb",
    new_text: "x\ny\nz",
    result: edited(1),
    after: "x\r\ny\r\nz\r\nc\r\n",
  },
  { name: "CRLF file, CRLF old_text", file: "a\r\nb\r\nc\r\n", old_text: "b\r\nc", new_text: "d", result: edited(1), after: "a\r\nd\r\n" },
  { name: "LF file, CRLF old and new", file: "a\nb\nc\n", old_text: "a\r\nb", new_text: "x\r\ny", result: edited(1), after: "x\ny\nc\n" },
  {
    name: "CRLF file, tolerant multi-line",
    file: "  a  \r\n  b\r\nc\r\n",
    old_text: "a\nb\n",
    new_text: "d\ne\n",
    result: edited(1, "indentation"),
    after: "  d\r\n  e\r\nc\r\n",
  },
  { name: "CRLF file, replace_all", file: "x\r\nx\r\n", old_text: "x\n", new_text: "y\n", replace_all: true, result: edited(2), after: "y\r\ny\r\n" },
  { name: "a lone CR is text, not a line ending", file: "a\rb\nc\n", old_text: "c", new_text: "x\ny", result: edited(1), after: "a\rb\nx\ny\n" },
  { name: "no line ending at all: new lines take LF", file: "a\rb", old_text: "b", new_text: "x\ny", result: edited(1), after: "a\rx\ny" },
  { name: "BOM kept, CRLF", file: "\uFEFFa\r\nb\r\n", old_text: "a", new_text: "z", result: edited(1), after: "\uFEFFz\r\nb\r\n" },
  { name: "BOM kept, match at the start", file: "\uFEFFhello\n", old_text: "hello", new_text: "bye", result: edited(1), after: "\uFEFFbye\n" },
  {
    name: "mixed endings: untouched lines keep theirs, new lines take the dominant CRLF",
    file: "a\r\nb\nc\r\nd\r\n",
    old_text: "c",
    new_text: "x\ny",
    result: edited(1),
    after: "a\r\nb\nx\r\ny\r\nd\r\n",
  },
  {
    name: "mixed endings: a replaced LF line break takes the dominant ending",
    file: "a\r\nb\nc\r\nd\r\n",
    old_text: "b\nc",
    new_text: "B\nC",
    result: edited(1),
    after: "a\r\nB\r\nC\r\nd\r\n",
  },
  {
    name: "mixed endings, LF dominant: a CRLF line elsewhere stays CRLF",
    file: "a\nb\r\nc\nd\n",
    old_text: "c\nd",
    new_text: "x\ny",
    result: edited(1),
    after: "a\nb\r\nx\ny\n",
  },
];

test.each(CASES.map((testCase, index) => [testCase.name, testCase, index] as const))("%s", async (_, testCase, index) => {
  const path = `case-${index}.txt`;
  await writeFile(join(root, path), testCase.file);
  const { call } = await pluginRuntime(plugin, { root });
  const { old_text, new_text, replace_all } = testCase;
  const result = await call("edit_file", { path, old_text, new_text, ...(replace_all === undefined ? {} : { replace_all }) });
  expect(result.content).toBe(testCase.result.replaceAll(" F", ` ${path}`).replaceAll(" F;", ` ${path};`));
  expect(await readFile(join(root, path), "utf8")).toBe(testCase.after ?? testCase.file);
});
