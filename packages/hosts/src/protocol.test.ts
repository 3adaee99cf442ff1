/**
 * A TypeBox schema crosses the host protocol as JSON with its marks: decoded, TypeBox's
 * compiler checks it and words its errors exactly as it does the original.
 */
import { describe, expect, test } from "bun:test";
import { type TSchema, Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { decodeSchema, eachLine, encodeSchema, parseHostMessage, protocolLine } from "./protocol.ts";

const schema = Type.Object({
  name: Type.String({ minLength: 2, pattern: "^[a-z]+$" }),
  count: Type.Optional(Type.Integer({ minimum: 1 })),
  mode: Type.Union([Type.Literal("a"), Type.Literal("b")]),
  tags: Type.Readonly(Type.Array(Type.String(), { maxItems: 2 })),
  nested: Type.Optional(Type.Object({ flag: Type.Boolean() }, { additionalProperties: false })),
  either: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  "~TypeBox.Kind": Type.Optional(Type.String()),
});

const values: unknown[] = [
  {},
  { name: 7, mode: "c", tags: "x" },
  { name: "A", count: 0, mode: "a", tags: ["x", "y", "z"], nested: { flag: "no", more: 1 } },
  { name: "ab", mode: "b", tags: [], either: "x", "~TypeBox.Kind": 3 },
  { name: "ab", mode: "b", tags: ["x"], either: null },
];

describe("encodeSchema / decodeSchema", () => {
  test("the decoded schema checks and words every error as the original", () => {
    const decoded = decodeSchema(JSON.parse(JSON.stringify(encodeSchema(schema)))) as TSchema;
    const original = TypeCompiler.Compile(schema as TSchema);
    const copy = TypeCompiler.Compile(decoded);
    for (const value of values) {
      const errors = (check: ReturnType<typeof TypeCompiler.Compile<TSchema>>) => [...check.Errors(value)].map(({ path, message }) => `${path}: ${message}`);
      expect(copy.Check(value)).toBe(original.Check(value));
      expect(errors(copy)).toEqual(errors(original));
    }
    // Without its marks, TypeBox cannot compile the schema at all: they are what is carried.
    expect(() => TypeCompiler.Compile(JSON.parse(JSON.stringify(schema)))).toThrow();
  });

  test("a property named like a mark is data, not a mark", () => {
    const decoded = decodeSchema(encodeSchema(schema)) as { properties: Record<string, unknown> };
    expect(Object.keys(decoded.properties)).toContain("~TypeBox.Kind");
  });

  test("functions are not carried", () => {
    const transformed = Type.Object({ at: Type.Transform(Type.String()).Decode((text) => new Date(text)).Encode((date) => date.toISOString()) });
    const encoded = JSON.stringify(encodeSchema(transformed));
    expect(encoded).not.toContain("Decode");
    const copy = TypeCompiler.Compile(decodeSchema(JSON.parse(encoded)) as TSchema);
    expect(copy.Check({ at: "2026-01-01" })).toBe(true);
    expect(copy.Check({ at: 1 })).toBe(false);
  });
});

describe("lines", () => {
  test("a line starts with the token; a stream is split into its lines, the last without a newline too", async () => {
    expect(protocolLine("T ", { type: "cancel", id: 3 })).toBe('T {"type":"cancel","id":3}\n');
    const chunks = ["one\ntw", "o\n", "", "thr", "ee"].map((text) => new TextEncoder().encode(text));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    const lines: string[] = [];
    await eachLine(stream, (line) => lines.push(line));
    expect(lines).toEqual(["one", "two", "three"]);
  });
});

describe("parseHostMessage", () => {
  test("reads the protocol's messages and nothing else", () => {
    const listing = { plugins: [{ name: "p", tools: [{ name: "t", description: "", parameters: encodeSchema(Type.Object({})), concurrency: "serial" }] }] };
    const shaped = { name: "s", description: "", parameters: encodeSchema(Type.Object({})), outputSchema: encodeSchema(Type.Object({ n: Type.Integer() })), concurrency: "read-only" };
    const good = [
      { type: "ready", listing },
      { type: "ready", listing: { plugins: [{ name: "p", tools: [shaped] }] } },
      { type: "result", id: 6, result: { content: "x", isError: false, structuredContent: { n: 1 } } },
      { type: "load-failed", code: "PLUGIN_IMPORT", message: "m" },
      { type: "load-failed", id: 3, code: "PLUGIN_IMPORT", message: "m" },
      { type: "result", id: 1, result: { content: "x", isError: false } },
      { type: "written", id: 2, key: "/w/a" },
      { type: "thrown", id: 4, error: { name: "TypeError", message: "m", stack: "s" } },
      { type: "thrown", id: 5, error: { message: "a thrown string" } },
      { type: "progress", id: 7, text: "line1\n" },
    ];
    for (const message of good) expect(parseHostMessage(JSON.stringify(message))).toEqual(message as never);
    const bad = [
      "not json",
      "[]",
      '{"type":"result","id":1,"result":null}',
      '{"type":"result","id":"1","result":{"content":"x","isError":false}}',
      '{"type":"result","id":1,"result":{"content":5,"isError":false}}',
      '{"type":"written","id":1}',
      '{"type":"thrown","id":1,"error":{"message":1}}',
      '{"type":"ready","listing":{"plugins":[{"name":"p","tools":[{"name":"t","description":"","parameters":{"json":{},"marks":[[["x"],"TypeBox.Kind"]]},"concurrency":"serial"}]}]}}',
      '{"type":"ready","listing":{"plugins":[{"name":"p","tools":[{"name":"t","description":"","parameters":{"json":{},"marks":[]},"concurrency":"fast"}]}]}}',
      '{"type":"cancel","id":1}',
      '{"type":"progress","id":1}',
      '{"type":"progress","id":1,"text":["x"]}',
      '{"type":"result","id":1,"result":{"content":"x","isError":false,"structuredContent":[1]}}',
      '{"type":"ready","listing":{"plugins":[{"name":"p","tools":[{"name":"t","description":"","parameters":{"json":{},"marks":[]},"outputSchema":{"json":1},"concurrency":"serial"}]}]}}',
    ];
    for (const line of bad) expect(parseHostMessage(line)).toBeUndefined();
  });
});
