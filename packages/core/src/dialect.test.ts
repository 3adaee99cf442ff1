import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { defineTool } from "./contract.ts";
import { refusedName, rewriteSchema } from "./dialect.ts";
import { textResult } from "./errors.ts";
import { ToolRegistry } from "./registry.ts";
import { REF_DEPTH } from "./schema-refs.ts";

/** An MCP server's schema, as zod-to-json-schema and others write them. */
const mcpSchema = {
  $schema: "http://json-schema.org/draft-07/schema#",
  type: "object",
  properties: {
    kind: { const: "city" },
    unit: { type: ["string", "null"], description: "Celsius or Fahrenheit." },
    place: { $ref: "#/$defs/Place" },
    tags: { type: "object", propertyNames: { pattern: "^[a-z]+$" }, additionalProperties: { type: "string" } },
  },
  required: ["kind", "place"],
  additionalProperties: false,
  $defs: { Place: { type: "object", properties: { name: { type: "string", format: "uri" } }, required: ["name"] } },
};

describe("gemini", () => {
  test("says what Google's Schema takes: const as enum, a type array as nullable, $ref inlined, the rest dropped", () => {
    const sent = rewriteSchema(mcpSchema, "gemini");
    expect(sent.parameters).toEqual({
      type: "object",
      properties: {
        kind: { type: "string", enum: ["city"] },
        unit: { type: "string", nullable: true, description: "Celsius or Fahrenheit." },
        place: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        tags: { type: "object" },
      },
      required: ["kind", "place"],
    });
    expect(sent.dropped).toEqual([
      "format at properties.place.properties.name",
      "propertyNames at properties.tags",
      "additionalProperties at properties.tags",
      "$schema at the root",
      "additionalProperties at the root",
    ]);
    expect(sent.expressed).toEqual(["$ref inlined", "const at properties.kind as enum", "type [string, null] at properties.unit as nullable"]);
    expect(sent.asWritten).toBe(false);
    expect(sent.strict).toBe(false);
  });

  test("a recursive $ref is cut at a fixed depth to an untyped object", () => {
    const tree = {
      type: "object",
      properties: { root: { $ref: "#/definitions/Node" } },
      definitions: { Node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/definitions/Node" } } } } },
    };
    const sent = rewriteSchema(tree, "gemini");
    const child = (node: unknown, ...keys: string[]): unknown => keys.reduce((at: unknown, key) => (at as Record<string, unknown> | undefined)?.[key], node);
    let node = child(sent.parameters, "properties", "root");
    for (let depth = 1; depth < REF_DEPTH; depth++) node = child(node, "properties", "children", "items");
    expect(child(node, "type")).toBe("object");
    expect(child(node, "properties", "children", "items")).toEqual({ type: "object" });
    expect(sent.dropped).toEqual([`$ref #/definitions/Node at properties.root${".properties.children.items".repeat(REF_DEPTH)}`]);
    expect(JSON.stringify(sent.parameters)).not.toContain("$ref");
  });

  test("anyOf with a null branch becomes nullable; oneOf becomes anyOf; a non-string enum is dropped", () => {
    const sent = rewriteSchema(
      {
        type: "object",
        properties: {
          when: { anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] },
          either: { oneOf: [{ type: "string" }, { type: "integer" }] },
          level: { type: "integer", enum: [1, 2] },
          id: { type: ["string", "integer"] },
        },
      },
      "gemini",
    );
    expect(sent.parameters?.properties).toEqual({
      when: { type: "string", format: "date-time", nullable: true },
      either: { anyOf: [{ type: "string" }, { type: "integer" }] },
      level: { type: "integer" },
      id: { anyOf: [{ type: "string" }, { type: "integer" }] },
    });
    expect(sent.dropped).toEqual(["enum at properties.level"]);
  });

  test("an object without properties, which Gemini refuses, is sent as no parameters", () => {
    const sent = rewriteSchema({ type: "object", properties: {}, additionalProperties: false }, "gemini");
    expect(sent.parameters).toBeUndefined();
    expect(sent.expressed).toEqual(["no properties as no parameters"]);
  });

  test("a schema of Google's fields only is taken as written", () => {
    const sent = rewriteSchema({ type: "object", properties: { a: { type: "string", minLength: 1 } }, required: ["a"] }, "gemini");
    expect(sent.asWritten).toBe(true);
  });

  test("names: a letter or _ first, dots and colons allowed, 64 at most", () => {
    expect(refusedName("weather.forecast:v2", "gemini")).toBeUndefined();
    expect(refusedName("2fa_code", "gemini")).toBe("gemini takes a letter or _ first, then letters, digits, _ . : or -, at most 64 in all");
    expect(refusedName("-x", "gemini")).toBeDefined();
    expect(refusedName(`a${"b".repeat(64)}`, "gemini")).toBeDefined();
    expect(refusedName("2fa_code", "openai")).toBeUndefined();
  });
});

describe("openai-strict", () => {
  test("every property required, optional ones nullable, objects closed, annotations left out", () => {
    const sent = rewriteSchema(
      {
        type: "object",
        properties: { path: { type: "string" }, limit: { type: "integer", minimum: 1 }, mode: { type: "string", enum: ["a", "b"], default: "a" } },
        required: ["path"],
      },
      "openai-strict",
    );
    expect(sent.strict).toBe(true);
    expect(sent.parameters).toEqual({
      type: "object",
      properties: { path: { type: "string" }, limit: { type: ["integer", "null"], minimum: 1 }, mode: { type: ["string", "null"], enum: ["a", "b", null] } },
      required: ["path", "limit", "mode"],
      additionalProperties: false,
    });
    expect(sent.dropped).toEqual(["default at properties.mode"]);
    expect(sent.fromModel?.({ path: "a", limit: null, mode: null })).toEqual({ path: "a" });
  });

  test("a null the tool's own schema accepts stays; nulls are removed at any depth", () => {
    const sent = rewriteSchema(
      {
        type: "object",
        properties: {
          note: { type: ["string", "null"] },
          items: { type: "array", items: { type: "object", properties: { id: { type: "string" }, tag: { type: "string" } }, required: ["id"] } },
        },
        required: [],
      },
      "openai-strict",
    );
    expect(sent.strict).toBe(true);
    expect(sent.fromModel?.({ note: null, items: [{ id: "1", tag: null }] })).toEqual({ note: null, items: [{ id: "1" }] });
  });

  test("not strict where the rewrite would not be exact: sent as written", () => {
    const schema = { type: "object", properties: { text: { type: "string", minLength: 1 }, extra: { type: "object", additionalProperties: { type: "string" } } } };
    const sent = rewriteSchema(schema, "openai-strict");
    expect(sent.strict).toBe(false);
    expect(sent.parameters).toBe(schema);
    expect(sent.notStrict).toEqual(["minLength at properties.text", "additionalProperties at properties.extra"]);
  });

  test("a schema already strict is taken as written", () => {
    const sent = rewriteSchema({ type: "object", properties: { a: { type: "string" } }, required: ["a"], additionalProperties: false }, "openai-strict");
    expect(sent).toMatchObject({ strict: true, asWritten: true, dropped: [], expressed: [] });
  });
});

describe("the registry", () => {
  const read = defineTool({
    name: "read_file",
    description: "Read a file.",
    parameters: Type.Object({ path: Type.String(), limit: Type.Optional(Type.Integer({ minimum: 1 })) }),
    handler: async () => textResult("ok"),
  });

  test("sends each tool in its dialect; validation still holds the whole schema", () => {
    const registry = new ToolRegistry([read], { dialect: "gemini" });
    expect(registry.schemas()[0]?.function.parameters).not.toHaveProperty("additionalProperties");
    const registered = registry.get("read_file");
    expect(registered?.sent.dropped).toEqual(["additionalProperties at the root"]);
    // additionalProperties: false was not sent, and still refuses an extra property.
    expect(registered?.validate({ path: "a", extra: 1 })).not.toEqual([]);
  });

  test("openai-strict sends strict: true and reads a null for an optional property as absent", () => {
    const registered = new ToolRegistry([read], { dialect: "openai-strict" }).get("read_file");
    expect(registered?.schema.function.strict).toBe(true);
    const args = registered?.fromModel({ path: "a", limit: null }) ?? {};
    expect(args).toEqual({ path: "a" });
    expect(registered?.validate(args)).toEqual([]);
    expect(registered?.validate({ path: "a", limit: null })).not.toEqual([]);
  });

  test("openai sends the schema as written, without strict", () => {
    const [tool] = new ToolRegistry([read]).schemas();
    expect(tool?.function).not.toHaveProperty("strict");
    expect(tool?.function.parameters).toHaveProperty("additionalProperties", false);
  });
});
