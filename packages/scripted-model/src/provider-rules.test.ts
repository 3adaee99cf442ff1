import { describe, expect, test } from "bun:test";
import { startScriptedModel } from "./scripted-model.ts";

const user = [{ role: "user", content: "Hi" }];
const tool = (parameters: unknown, extra: Record<string, unknown> = {}) => ({ type: "function", function: { name: "read_file", parameters, ...extra } });

async function post(baseURL: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${baseURL}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

describe("gemini rules", () => {
  test("a keyword outside Google's Schema is refused with Gemini's 400 body and field violation, using no reply", async () => {
    await using model = await startScriptedModel([{ content: "ok" }], { rules: "gemini" });
    const schema = { type: "object", properties: { path: { type: "string" }, tags: { type: "array", items: { type: "object", additionalProperties: false } } }, additionalProperties: false };
    const refused = await post(model.baseURL, { model: "m", messages: user, tools: [tool(schema)] });
    const description = (at: string) => `Invalid JSON payload received. Unknown name "additionalProperties" at '${at}': Cannot find field.`;
    const deep = "tools[0].function_declarations[0].parameters.properties[1].value.items";
    expect(refused).toEqual({
      status: 400,
      body: [
        {
          error: {
            code: 400,
            message: `${description("tools[0].function_declarations[0].parameters")}\n${description(deep)}`,
            status: "INVALID_ARGUMENT",
            details: [
              {
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                fieldViolations: [
                  { field: "tools[0].function_declarations[0].parameters", description: description("tools[0].function_declarations[0].parameters") },
                  { field: deep, description: description(deep) },
                ],
              },
            ],
          },
        },
      ],
    });
    expect(model.pending).toBe(1);
  });

  test("a request field it does not know is refused; Google's fields are taken", async () => {
    await using model = await startScriptedModel([{ content: "ok" }], { rules: "gemini" });
    const refused = await post(model.baseURL, { model: "m", messages: user, parallel_tool_calls: false });
    expect(JSON.stringify(refused.body)).toContain('Unknown name \\"parallel_tool_calls\\": Cannot find field.');
    const schema = { type: "object", properties: { path: { type: "string", nullable: true, enum: ["a"] } }, required: ["path"] };
    expect((await post(model.baseURL, { model: "m", messages: user, tools: [tool(schema)], tool_choice: "auto" })).status).toBe(200);
  });

  test("an object without properties as a tool's parameters is refused", async () => {
    await using model = await startScriptedModel([{ content: "ok" }], { rules: "gemini" });
    const refused = await post(model.baseURL, { model: "m", messages: user, tools: [tool({ type: "object", properties: {} })] });
    expect(JSON.stringify(refused.body)).toContain("parameters.properties: should be non-empty for OBJECT type");
    expect((await post(model.baseURL, { model: "m", messages: user, tools: [{ type: "function", function: { name: "list" } }] })).status).toBe(200);
  });

  test("a name Gemini refuses is refused", async () => {
    await using model = await startScriptedModel([], { rules: "gemini" });
    const refused = await post(model.baseURL, { model: "m", messages: user, tools: [{ type: "function", function: { name: "2fa", parameters: { type: "object" } } }] });
    expect(JSON.stringify(refused.body)).toContain("Invalid function name");
  });
});

describe("openai-strict rules", () => {
  test("a strict tool with an optional property is refused as OpenAI refuses it; without strict it is taken", async () => {
    await using model = await startScriptedModel([{ content: "ok" }], { rules: "openai-strict" });
    const schema = { type: "object", properties: { path: { type: "string" }, limit: { type: "integer" } }, required: ["path"], additionalProperties: false };
    const refused = await post(model.baseURL, { model: "m", messages: user, tools: [tool(schema, { strict: true })] });
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          message:
            "Invalid schema for function 'read_file': In context=(), 'required' is required to be supplied and to be an array including every key in properties. Missing 'limit'.",
          type: "invalid_request_error",
          param: "tools[0].function.parameters",
          code: "invalid_function_parameters",
        },
      },
    });
    expect((await post(model.baseURL, { model: "m", messages: user, tools: [tool(schema)] })).status).toBe(200);
  });

  test("a keyword strict mode does not take is refused with its context", async () => {
    await using model = await startScriptedModel([], { rules: "openai-strict" });
    const schema = { type: "object", properties: { text: { type: "string", minLength: 1 } }, required: ["text"], additionalProperties: false };
    const refused = await post(model.baseURL, { model: "m", messages: user, tools: [tool(schema, { strict: true })] });
    expect(JSON.stringify(refused.body)).toContain("In context=('properties', 'text'), 'minLength' is not permitted.");
  });
});
