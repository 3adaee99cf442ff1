import { describe, expect, test } from "bun:test";
import { readArguments, toolNamed } from "./repair.ts";

const FENCED = '```json\n{"path":"a.txt"}\n```';

describe("readArguments repairs almost-JSON only when the repair is unambiguous", () => {
  test.each([
    ["a trailing comma", '{"path":"a.txt",}', { path: "a.txt" }],
    ["a trailing comma in a list", '{"paths":["a","b",]}', { paths: ["a", "b"] }],
    ["a code fence with a language", FENCED, { path: "a.txt" }],
    ["a code fence without one, around repairable text", "```\n{'path':'a.txt',}\n```", { path: "a.txt" }],
    ["single quotes", "{'path':'a.txt','limit':2}", { path: "a.txt", limit: 2 }],
    ["single quotes around double ones", `{'say':'he said "hi"'}`, { say: 'he said "hi"' }],
    ["an escaped single quote", "{'say':'it\\'s'}", { say: "it's" }],
    ["unquoted keys", "{path: 'a.txt'}", { path: "a.txt" }],
    ["a missing comma between members", '{"a":1 "b":2}', { a: 1, b: 2 }],
    ["a doubled encoding", JSON.stringify(JSON.stringify({ path: "a.txt" })), { path: "a.txt" }],
    ["a doubled encoding of repairable text", JSON.stringify('{"path":"a.txt",}'), { path: "a.txt" }],
  ])("%s is repaired", (_, raw, value) => {
    expect(readArguments(raw)).toEqual({ value, repaired: true });
  });

  test.each([
    ["a truncated string", '{"path":"a.t'],
    ["a truncated string whose text has a brace", '{"path":"a.t}'],
    ["a truncated object", '{"path":"a.txt","limit":2'],
    ["a truncated object after a comma", '{"path":"a.txt",'],
    ["a truncated list", '{"paths":["a","b"'],
    ["a string left open in the middle", '{"a":"b, "c":1}'],
    ["a missing value", '{"a":}'],
    ["an extra closing brace", '{"a":1}}'],
    ["two objects", '{"a":1}{"b":2}'],
    ["a doubled comma", '{"a":1,,"b":2}'],
    ["an ellipsis", '{"a":[1,2,...]}'],
    ["a comment", '{"a":1} // note'],
    ["Python constants", '{"a": True}'],
    ["a concatenation", '{"a":"x" + "y"}'],
    ["strings side by side", '{"a": "b" "c"}'],
    ["text after the object", '{"a":"x"} and more'],
    ["a fence never closed", '```json\n{"path":"a.txt"}'],
    ["no JSON at all", "path=a.txt please"],
  ])("%s is refused", (_, raw) => {
    expect(readArguments(raw)).toBeUndefined();
  });

  test("JSON needs no repair, and a JSON string that holds no object stays a string", () => {
    expect(readArguments('{"path":"a.txt"}')).toEqual({ value: { path: "a.txt" }, repaired: false });
    expect(readArguments('"just text"')).toEqual({ value: "just text", repaired: false });
    expect(readArguments("[1,2]")).toEqual({ value: [1, 2], repaired: false });
  });
});

describe("toolNamed maps a name that differs only by case or -/_ from exactly one tool", () => {
  const names = ["read_file", "write_file", "glob"];
  test.each([
    ["Read_File", "read_file"],
    ["read-file", "read_file"],
    ["WRITE-FILE", "write_file"],
    ["Glob", "glob"],
  ])("%s is %s", (name, tool) => {
    expect(toolNamed(name, names)).toBe(tool);
  });

  test("no tool, another word, or two candidates: none", () => {
    expect(toolNamed("readfile", names)).toBeUndefined();
    expect(toolNamed("read_files", names)).toBeUndefined();
    expect(toolNamed("run-it", ["run_it", "run-it2", "Run_It"])).toBeUndefined();
  });
});
