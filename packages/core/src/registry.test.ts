import { describe, expect, spyOn, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { defineTool } from "./contract.ts";
import { textResult } from "./errors.ts";
import { DuplicateToolError, ToolRegistry } from "./registry.ts";

const echo = (name: string, reply = name) =>
  defineTool({
    name,
    description: `The ${name} tool.`,
    parameters: Type.Object({ text: Type.String({ description: "What to echo." }) }),
    handler: async () => textResult(reply),
  });

describe("ToolRegistry", () => {
  test("each instance owns its index: two registries can bind the same name differently", () => {
    const first = new ToolRegistry([echo("read_file", "one")]);
    const second = new ToolRegistry([echo("read_file", "two"), echo("glob")]);
    expect(first.names()).toEqual(["read_file"]);
    expect(second.names()).toEqual(["read_file", "glob"]);
    expect(first.get("glob")).toBeUndefined();
    expect(first.get("read_file")?.tool).not.toBe(second.get("read_file")?.tool);
  });

  test("rejects a duplicate name, naming the tool", () => {
    expect(() => new ToolRegistry([echo("bash"), echo("bash")])).toThrow(new DuplicateToolError("bash", [undefined, undefined]));
    expect(() => new ToolRegistry([echo("bash"), echo("bash")])).toThrow("Duplicate tool name: bash");
  });

  test("a duplicate between owners names both owners", () => {
    const build = () =>
      new ToolRegistry([
        { tool: echo("glob"), owner: "@acme/plugin-a" },
        { tool: echo("glob"), owner: "@acme/plugin-b" },
      ]);
    expect(build).toThrow("Duplicate tool name: glob (provided by @acme/plugin-a and by @acme/plugin-b)");
  });

  test("schemas() is the OpenAI tools array in registration order", () => {
    const registry = new ToolRegistry([echo("b_tool"), echo("a_tool")]);
    expect(registry.schemas()).toEqual([
      {
        type: "function",
        function: {
          name: "b_tool",
          description: "The b_tool tool.",
          parameters: {
            type: "object",
            additionalProperties: false,
            required: ["text"],
            properties: { text: { type: "string", description: "What to echo." } },
          },
        },
      },
      expect.objectContaining({ function: expect.objectContaining({ name: "a_tool" }) }),
    ]);
  });

  test("schemas() returns deep copies: mutating them changes neither the registry nor the definition", () => {
    const tool = echo("read_file");
    const registry = new ToolRegistry([tool]);
    const copy = registry.schemas();
    const parameters = copy[0]?.function.parameters as { properties: Record<string, unknown> };
    parameters.properties.injected = { type: "number" };
    (copy[0] as { function: { name: string } }).function.name = "renamed";
    expect(registry.schemas()[0]?.function.name).toBe("read_file");
    expect(registry.schemas()[0]?.function.parameters).not.toHaveProperty("properties.injected");
    expect(tool.parameters.properties).not.toHaveProperty("injected");
  });

  test("the schema sent to the model carries no TypeBox symbols and survives JSON", () => {
    const [schema] = new ToolRegistry([echo("glob")]).schemas();
    expect(Object.getOwnPropertySymbols(schema?.function.parameters ?? {})).toEqual([]);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
  });

  test("each schema is compiled once, on its first call, not per call, and not to list it", async () => {
    const compile = spyOn(TypeCompiler, "Compile");
    try {
      const registry = new ToolRegistry([echo("glob"), echo("bash")]);
      registry.schemas();
      expect(compile).toHaveBeenCalledTimes(0);
      for (let i = 0; i < 5; i++) expect(registry.get("glob")?.validate({ text: "x" })).toEqual([]);
      expect(compile).toHaveBeenCalledTimes(1);
      registry.get("bash")?.validate({ text: "x" });
      registry.get("bash")?.validate({});
      expect(compile).toHaveBeenCalledTimes(2);
    } finally {
      compile.mockRestore();
    }
  });

  test("a schema that explicitly allows extra properties keeps that choice", () => {
    const open = defineTool({
      name: "open",
      description: "Accepts anything.",
      parameters: Type.Object({}, { additionalProperties: true }),
      handler: async () => textResult("ok"),
    });
    expect(new ToolRegistry([open]).get("open")?.validate({ any: 1 })).toEqual([]);
  });
});

describe("an entry with its own validator", () => {
  const raw = { type: "object", properties: { n: { type: "integer", minimum: 1 } }, required: ["n"] };
  const counted = defineTool({
    name: "counted",
    description: "Takes plain JSON Schema.",
    parameters: raw as unknown as ReturnType<typeof Type.Object>,
    handler: async ({ n }) => textResult(`n=${String(n)}`),
  });
  const validate = (args: unknown) => (typeof (args as { n?: unknown }).n === "number" ? [] : ["n: expected a number"]);

  test("sends its parameters as they are and validates with its own validator", async () => {
    const registry = new ToolRegistry([{ tool: counted, validate }]);
    expect(registry.schemas()[0]?.function.parameters).toEqual(raw);
    expect(registry.get("counted")?.check).toBeUndefined();
    expect(registry.get("counted")?.validate({ n: "x" })).toEqual(["n: expected a number"]);
    expect(registry.get("counted")?.validate({ n: 2 })).toEqual([]);
  });
});

describe("defineTool", () => {
  test("returns a frozen definition", () => {
    const tool = echo("glob");
    expect(Object.isFrozen(tool)).toBe(true);
    expect(() => {
      (tool as { name: string }).name = "other";
    }).toThrow();
  });

  test("refuses a name the OpenAI API would refuse", () => {
    expect(() => echo("read file")).toThrow('Invalid tool name "read file"');
    expect(() => echo("x".repeat(65))).toThrow("Invalid tool name");
  });
});
