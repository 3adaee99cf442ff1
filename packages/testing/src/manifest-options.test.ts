import { expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { manifestOptionsProblems } from "./manifest-options.ts";

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
const schema = json(
  Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, default: 10 })), ignore: Type.Array(Type.String(), { default: ["a"] }) }),
);

test("the JSON of the schema, keys in any order, has no problems", () => {
  const reordered = { properties: { ignore: { default: ["a"], items: { type: "string" }, type: "array" }, limit: { default: 10, minimum: 1, type: "integer" } }, required: ["ignore"], type: "object" };
  expect(manifestOptionsProblems(reordered, schema)).toEqual([]);
});

test("each difference names its key path and both values", () => {
  const manifest = { type: "object", properties: { limit: { type: "integer", default: 10 }, ignore: { type: "array", items: { type: "string" }, default: ["b"] } }, required: ["ignore"], additionalProperties: false };
  expect(manifestOptionsProblems(manifest, schema)).toEqual([
    "its manifest's options differ from the options schema its entry exports: " +
      "options.properties.limit.minimum: the manifest has nothing, the schema has 1; " +
      'options.properties.ignore.default[0]: the manifest has "b", the schema has "a"; ' +
      "options.additionalProperties: the manifest has false, the schema has nothing",
  ]);
});

test("lists five differences and counts the rest", () => {
  const manifest = { ...(schema as object), a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7 };
  expect(manifestOptionsProblems(manifest, schema)[0]).toEndWith("options.e: the manifest has 5, the schema has nothing; and 2 more");
});
