import { expect, test } from "bun:test";
import { dialectLine, refusedNames } from "./dialect-lines.ts";

const readFile = {
  name: "read_file",
  parameters: { type: "object", properties: { path: { type: "string" }, limit: { type: "integer", minimum: 1 } }, required: ["path"], additionalProperties: false },
};

test("a line per tool: the dialects that take its schema as written, and what each rewrite drops or says another way", () => {
  expect(dialectLine(readFile)).toBe(
    "read_file: as written in openai; openai-strict strict: says optional properties.limit as required and nullable; gemini drops additionalProperties at the root",
  );
});

test("a schema strict mode cannot say exactly is not strict; one of Google's fields only is as written in gemini", () => {
  const tool = { name: "glob", parameters: { type: "object", properties: { pattern: { type: "string", minLength: 1 } }, required: ["pattern"] } };
  expect(dialectLine(tool)).toBe("glob: as written in openai, gemini; openai-strict not strict, sent as written (strict mode cannot say minLength at properties.pattern)");
});

test("a name a dialect refuses is named with the rule", () => {
  expect(refusedNames({ name: "2fa", parameters: {} })).toEqual([
    "2fa: an app in the gemini dialect refuses this name (gemini takes a letter or _ first, then letters, digits, _ . : or -, at most 64 in all)",
  ]);
  expect(refusedNames(readFile)).toEqual([]);
});
