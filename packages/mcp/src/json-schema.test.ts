import { describe, expect, test } from "bun:test";
import { jsonSchemaValidator } from "./json-schema.ts";

const ITEMS = {
  type: "object",
  properties: {
    name: { type: "string", minLength: 2 },
    count: { type: "integer", minimum: 1 },
    items: { type: "array", items: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false } },
  },
  required: ["name", "count"],
  additionalProperties: false,
};

describe("jsonSchemaValidator", () => {
  test("valid arguments have no problems", () => {
    expect(jsonSchemaValidator(ITEMS)({ name: "ab", count: 2, items: [{ id: "x" }] })).toEqual([]);
  });

  test("each failing path gets one line in Ajv's words", () => {
    expect(jsonSchemaValidator(ITEMS)({ name: "a", count: 0.5 })).toEqual(["name: must NOT have fewer than 2 characters", "count: must be integer"]);
    expect(jsonSchemaValidator(ITEMS)({ name: "ab", count: 0 })).toEqual(["count: must be >= 1"]);
  });

  test("a missing or an extra property is named by its own path, each on its line", () => {
    expect(jsonSchemaValidator(ITEMS)({ extra: true, items: [{ other: 1 }] })).toEqual([
      "name: must be present",
      "count: must be present",
      "extra: must NOT be present",
      "items[0].id: must be present",
      "items[0].other: must NOT be present",
    ]);
  });

  test("a problem of the arguments as a whole is named (arguments)", () => {
    expect(jsonSchemaValidator({ type: "object", minProperties: 1 })({})).toEqual(["(arguments): must NOT have fewer than 1 properties"]);
  });

  test("a draft-07 schema is read as draft-07, formats included", () => {
    const schema = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { at: { type: "string", format: "date" } } };
    expect(jsonSchemaValidator(schema)({ at: "yesterday" })).toEqual(['at: must match format "date"']);
  });

  test("a schema Ajv cannot use throws when compiled", () => {
    expect(() => jsonSchemaValidator({ type: "object", properties: { a: { $ref: "#/$defs/missing" } } })).toThrow();
  });
});
