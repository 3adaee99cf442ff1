import { expect, test } from "bun:test";
import { parseJson } from "./json.ts";

test("valid JSON, with or without a byte order mark", () => {
  expect(parseJson('{"a":[1,2.5e3,true,null,"\\u00e9"]}')).toEqual({ ok: true, value: { a: [1, 2500, true, null, "é"] } });
  expect(parseJson('\uFEFF{"b":1}')).toEqual({ ok: true, value: { b: 1 } });
});

test("comments and trailing commas are allowed (JSONC)", () => {
  const text = '// the app\n{\n  /* model */ "a": [1, 2,],\n  "b": "not // a comment", // why\n}\n';
  expect(parseJson(text)).toEqual({ ok: true, value: { a: [1, 2], b: "not // a comment" } });
});

test("each syntax error has its line, column and a readable problem", () => {
  const cases: [string, number, number, string][] = [
    ['{\n  "a": x\n}', 2, 8, 'unexpected text, found "x"'],
    ['{"a" 1}', 1, 6, 'expected ":" after the property name, found "1"'],
    ['{"a": 1 "b": 2}', 1, 9, 'expected ",", found "\\"b\\""'],
    ['{"a": [1 2]}', 1, 10, 'expected ",", found "2"'],
    ['{\n  "a": "line\nbreak"}', 2, 8, "unterminated string (a line break inside a string is written \\n)"],
    ['{"a": "\\x"}', 1, 7, "invalid escape sequence in a string"],
    ['{"a": "open', 1, 7, "unterminated string (a line break inside a string is written \\n)"],
    ["{'a': 1}", 1, 2, "unexpected text, found \"'a'\""],
    ['{"a": 1} extra', 1, 10, 'unexpected text, found "extra"'],
    ['{"a": {"b": 1}', 1, 15, 'expected "," or "}", found the end of the file'],
    ["/* open", 1, 1, "unterminated /* comment"],
    ["", 1, 1, "expected a value, found the end of the file"],
  ];
  for (const [text, line, column, problem] of cases) {
    expect({ text, result: parseJson(text) }).toEqual({ text, result: { ok: false, line, column, problem } });
  }
});
