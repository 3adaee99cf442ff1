import { describe, expect, test } from "bun:test";
import { type TObject, Type } from "@sinclair/typebox";
import { strictModeProblems } from "./strict-schema.ts";

describe("strictModeProblems", () => {
  test("a schema in strict form has no problems", () => {
    const schema = Type.Object(
      {
        path: Type.String({ description: "File path", pattern: "^[^/]" }),
        limit: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
        mode: Type.Union([Type.Literal("lines"), Type.Literal("bytes")]),
        tags: Type.Array(Type.String({ format: "uuid" }), { maxItems: 3 }),
        range: Type.Object({ from: Type.Number(), to: Type.Number() }, { additionalProperties: false }),
      },
      { additionalProperties: false },
    );
    expect(strictModeProblems(schema)).toEqual([]);
  });

  test("names every optional property, every open object and every unsupported keyword, with what to do", () => {
    const schema = Type.Object({
      name: Type.String({ minLength: 1 }),
      count: Type.Optional(Type.Integer({ default: 3 })),
      when: Type.String({ format: "uri" }),
      nested: Type.Object({ deep: Type.Boolean() }),
    });
    expect(strictModeProblems(schema)).toEqual([
      "(parameters): set additionalProperties: false",
      'name: "minLength" is not supported in strict mode (say the limit in the description and check it in the handler)',
      'count: optional; strict mode requires every property: make it required and nullable (Type.Union([T, Type.Null()])), null meaning "not given"',
      'count: "default" is not supported in strict mode (say the default in the description and apply it in the handler)',
      'when: format "uri" is not supported in strict mode (supported: date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid)',
      "nested: set additionalProperties: false",
    ]);
  });

  test("refuses a root that is not an object, and free-form records", () => {
    expect(strictModeProblems(Type.Union([Type.Object({}), Type.Null()]))).toEqual([
      "(parameters): the root must be an object schema (type: object), not a union or another type",
    ]);
    const record = Type.Object({ env: Type.Record(Type.String(), Type.String()) }, { additionalProperties: false });
    expect(strictModeProblems(record)).toContain("env: an object must list its properties (a free-form record is not supported)");
  });

  test("looks inside unions and array items, naming the branch", () => {
    const schema = Type.Object(
      { target: Type.Union([Type.Object({ id: Type.String() }), Type.Null()]), items: Type.Array(Type.String({ maxLength: 9 })) },
      { additionalProperties: false },
    );
    expect(strictModeProblems(schema)).toEqual([
      "target[anyOf 0]: set additionalProperties: false",
      'items[]: "maxLength" is not supported in strict mode (say the limit in the description and check it in the handler)',
    ]);
  });

  test("counts nesting against the limit of 10 levels", () => {
    let schema: TObject = Type.Object({ leaf: Type.String() }, { additionalProperties: false });
    for (let level = 0; level < 10; level++) schema = Type.Object({ next: schema }, { additionalProperties: false });
    expect(strictModeProblems(schema)).toEqual([
      "next.next.next.next.next.next.next.next.next.next: nested 11 objects deep, over strict mode's 10",
    ]);
  });
});
