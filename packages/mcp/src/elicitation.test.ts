import { describe, expect, test } from "bun:test";
import { answerProblems, elicitationRequest, fieldProblems, parseField } from "./elicitation.ts";

const request = elicitationRequest("srv", "Tell us", {
  type: "object",
  properties: {
    name: { type: "string", title: "Name", minLength: 2 },
    age: { type: "integer", minimum: 0 },
    color: { type: "string", oneOf: [{ const: "r", title: "Red" }, { const: "g", title: "Green" }] },
    tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] } },
    ok: { type: "boolean", default: true },
    email: { type: "string", format: "email" },
  },
  required: ["name", "color"],
});
const field = (name: string) => {
  const found = request.fields.find((each) => each.name === name);
  if (found === undefined) throw new Error(`no field ${name}`);
  return found;
};

describe("elicitation forms", () => {
  test("fields are read from the schema in its order, with titles, choices and defaults", () => {
    expect(request.fields.map((each) => [each.name, each.title, each.type, each.required])).toEqual([
      ["name", "Name", "string", true],
      ["age", "age", "integer", false],
      ["color", "color", "choice", true],
      ["tags", "tags", "choices", false],
      ["ok", "ok", "boolean", false],
      ["email", "email", "string", false],
    ]);
    expect(field("color").options).toEqual([{ value: "r", label: "Red" }, { value: "g", label: "Green" }]);
    expect(field("ok").default).toBe(true);
  });

  test("typed answers become values; a choice by value, label or number", () => {
    expect(parseField(field("age"), " 42 ")).toEqual({ value: 42 });
    expect(parseField(field("age"), "old")).toEqual({ problem: "must be a number" });
    expect(parseField(field("ok"), "")).toEqual({ value: true });
    expect(parseField(field("ok"), "No")).toEqual({ value: false });
    expect(parseField(field("ok"), "maybe")).toEqual({ problem: "must be yes or no" });
    expect(parseField(field("color"), "green")).toEqual({ value: "g" });
    expect(parseField(field("color"), "1")).toEqual({ value: "r" });
    expect(parseField(field("color"), "blue")).toEqual({ problem: "must be one of: r, g" });
    expect(parseField(field("tags"), "a, 3")).toEqual({ value: ["a", "c"] });
    expect(parseField(field("tags"), "a, z")).toEqual({ problem: "must be among: a, b, c (separated by commas)" });
  });

  test("values are checked against the schema: types, bounds, formats, required fields, enums", () => {
    expect(fieldProblems(request, field("age"), 4.5)).toEqual(["age: must be integer"]);
    expect(fieldProblems(request, field("age"), -1)).toEqual(["age: must be >= 0"]);
    expect(fieldProblems(request, field("name"), undefined)).toEqual(["name: must be present"]);
    expect(fieldProblems(request, field("name"), "A")).toEqual(["name: must NOT have fewer than 2 characters"]);
    expect(fieldProblems(request, field("email"), "not-an-address")).toEqual(['email: must match format "email"']);
    expect(fieldProblems(request, field("age"), undefined)).toEqual([]);
    expect(answerProblems(request, { name: "Ada", color: "x" })).toEqual(["color: must be equal to constant"]);
    expect(answerProblems(request, { name: "Ada", color: "g", tags: ["a"] })).toEqual([]);
  });
});
