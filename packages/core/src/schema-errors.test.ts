import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { fieldProblems, formatPath, formatSchemaErrors } from "./schema-errors.ts";

describe("formatSchemaErrors", () => {
  test("one line per path, the first problem of each, lower-cased to read on after the colon", () => {
    const lines = formatSchemaErrors([
      { path: ["limit"], message: "Expected integer" },
      { path: ["limit"], message: "Expected integer to be greater or equal to 1" },
      { path: ["items", 0, "name"], message: "required" },
    ]);
    expect(lines).toEqual(["limit: expected integer", "items[0].name: required"]);
  });

  test("a prefix places the value in its document; the root has a name", () => {
    const problems = [
      { path: [], message: "expected an object" },
      { path: ["max"], message: "expected integer" },
    ];
    expect(formatSchemaErrors(problems, { prefix: ["plugins", 2, "options"], root: "body" })).toEqual([
      "plugins[2].options: expected an object",
      "plugins[2].options.max: expected integer",
    ]);
    expect(formatSchemaErrors([{ path: [], message: "Bad" }], { root: "body" })).toEqual(["body: bad"]);
  });

  test("keys that are not identifiers are quoted", () => {
    expect(formatPath(["env", "MY-KEY", 3, "a b"])).toBe('env["MY-KEY"][3]["a b"]');
  });

  test("TypeBox's JSON Pointer paths become key paths, escapes decoded", () => {
    const check = TypeCompiler.Compile(
      Type.Object({ limits: Type.Array(Type.Object({ "a/b~c": Type.Integer() })) }, { additionalProperties: false }),
    );
    expect(fieldProblems(check.Errors({ limits: [{ "a/b~c": "x" }] }))).toEqual(['limits[0]["a/b~c"]: expected integer']);
    expect(fieldProblems([{ path: "", message: "Expected object" }])).toEqual(["(arguments): expected object"]);
  });
});
