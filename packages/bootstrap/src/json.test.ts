import { expect, test } from "bun:test";
import { parseJson } from "./json.ts";

test("valid JSON, with or without a byte order mark", () => {
  expect(parseJson('{"a":[1,2.5e3,true,null,"\\u00e9"]}')).toEqual({ ok: true, value: { a: [1, 2500, true, null, "é"] } });
  expect(parseJson('\uFEFF{"b":1}')).toEqual({ ok: true, value: { b: 1 } });
});

test("each syntax error has its line, column and a readable problem", () => {
  const cases: [string, number, number, string][] = [
    ['{\n  "a": x\n}', 2, 8, 'unexpected "x", expected a value'],
    ['{"a": 1,}', 1, 9, 'expected a property name in double quotes, found "}" (JSON allows no comma before })'],
    ["[1, 2,]", 1, 7, "unexpected ] (JSON allows no comma before ])"],
    ['{"a" 1}', 1, 6, 'expected ":" after the property name, found "1"'],
    ['{"a": 1 "b": 2}', 1, 9, 'expected "," or "}", found "\\""'],
    ['{\n  "a": "line\nbreak"}', 2, 13, "unescaped line break or control character in a string"],
    ['{"a": "\\x"}', 1, 8, "invalid escape sequence in a string"],
    ['{"a": "open', 1, 12, "unterminated string"],
    ["{'a': 1}", 1, 2, "expected a property name in double quotes, found \"'\""],
    ['{"a": 1} extra', 1, 10, 'unexpected "e" after the end of the JSON value'],
    ["", 1, 1, "unexpected end of file, expected a value"],
  ];
  for (const [text, line, column, problem] of cases) {
    expect({ text, result: parseJson(text) }).toEqual({ text, result: { ok: false, line, column, problem } });
  }
});
