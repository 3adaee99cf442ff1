import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { invalidArguments, UNFIT_TEXTS, unfitArguments } from "./sample-arguments.ts";

const params = Type.Object(
  {
    path: Type.String(),
    limit: Type.Optional(Type.Integer({ minimum: 5 })),
    mode: Type.Optional(Type.Union([Type.Literal("a"), Type.Literal("b")])),
    all: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const wire = JSON.parse(JSON.stringify(params));

describe("unfitArguments", () => {
  test("puts each unfit text in every string, with only the required properties and with all", () => {
    const sets = unfitArguments(wire);
    expect(sets).toContainEqual({ path: "missing/nothing-here.txt" });
    expect(sets).toContainEqual({ path: "../outside-the-workspace.txt", limit: 5, mode: "a", all: true });
    expect(sets).toHaveLength(UNFIT_TEXTS.length * 2);
    for (const args of sets) expect(Value.Check(params, args)).toBe(true);
  });

  test("a nullable property is also given null, so a pattern the texts miss does not hide the tool", () => {
    const nullable = Type.Object(
      { text: Type.String(), due: Type.Union([Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$" }), Type.Null()]) },
      { additionalProperties: false },
    );
    const valid = unfitArguments(JSON.parse(JSON.stringify(nullable))).filter((args) => Value.Check(nullable, args));
    expect(valid).toContainEqual({ text: "missing/nothing-here.txt", due: null });
    expect(valid).toHaveLength(UNFIT_TEXTS.length);
  });
});

describe("invalidArguments", () => {
  test("covers bad JSON, a non-object, each missing required property, each wrong type and an extra property", () => {
    const cases = invalidArguments(wire);
    expect(cases.map((item) => item.label)).toEqual([
      "text that is not JSON",
      "a JSON array instead of an object",
      "without the required property path",
      "path of the wrong type",
      "limit of the wrong type",
      "mode of the wrong type",
      "all of the wrong type",
      "an undeclared property",
    ]);
    for (const { raw } of cases.slice(2)) expect(Value.Check(params, JSON.parse(raw))).toBe(false);
  });

  test("a whole number is wrong for a string and a string for an integer; no extra property when extras are allowed", () => {
    const open = JSON.parse(JSON.stringify(Type.Object({ n: Type.Integer(), s: Type.String() }, { additionalProperties: true })));
    const cases = invalidArguments(open);
    expect(cases.find((item) => item.label === "n of the wrong type")?.raw).toBe('{"n":"plugboard-check","s":"README.md"}');
    expect(cases.find((item) => item.label === "s of the wrong type")?.raw).toBe('{"n":1,"s":12.5}');
    expect(cases.map((item) => item.label)).not.toContain("an undeclared property");
  });

  test("skips properties whose schema allows any type", () => {
    const loose = JSON.parse(JSON.stringify(Type.Object({ anything: Type.Unknown() }, { additionalProperties: false })));
    expect(invalidArguments(loose).map((item) => item.label)).toEqual([
      "text that is not JSON",
      "a JSON array instead of an object",
      "without the required property anything",
      "an undeclared property",
    ]);
  });
});
