import { describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { defineTool, textResult, ToolRegistry, Type, Workspace } from "@plugboard/core";
import { ToolRuntime } from "@plugboard/runtime";
import { type ScriptedModelOptions, type ScriptedReply, startScriptedModel } from "@plugboard/scripted-model";
import { runAgentLoop } from "./agent-loop.ts";
import { createModelClient } from "./model-client.ts";
import { describeModelFailure } from "./model-failure.ts";

const lookup = defineTool({
  name: "lookup",
  description: "Look a word up.",
  parameters: Type.Object({ word: Type.String(), limit: Type.Optional(Type.Integer()) }),
  handler: async () => textResult("ok"),
});

/** What a turn with `lookup` in `dialect` fails with, against an endpoint with `rules` answering `reply`. */
async function failure(dialect: "openai" | "openai-strict", options: ScriptedModelOptions, reply: ScriptedReply = { content: "never" }): Promise<unknown> {
  await using model = await startScriptedModel([reply], options);
  const { client } = createModelClient({ name: "m", baseURL: model.baseURL, apiKey: "k" });
  const runtime = new ToolRuntime(new ToolRegistry([{ tool: lookup, owner: "@acme/plugin-words" }], { dialect }), { workspace: await Workspace.open(tmpdir()) });
  return await runAgentLoop({ messages: [{ role: "user", content: "hi" }], runtime, client, model: "m", maxSteps: 1 }).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("a 400 about one of the tools sent", () => {
  test("Gemini's (a one-element array body, read as the error inside) names the tool, its plugin and the gemini dialect", async () => {
    const error = await failure("openai", { rules: "gemini" });
    const line = describeModelFailure(error, { baseURL: "http://gemini.test/v1", model: "m" })?.message;
    expect(line).toBe(
      `Model endpoint http://gemini.test/v1 refused the schema of tool lookup (provided by @acme/plugin-words) (400: Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field.); set "model": {"dialect": "gemini"} in the config to send it in a form the endpoint takes (it is sent in the openai dialect)`,
    );
  });

  test("OpenAI's strict mode refusing a strict tool names it and points back to openai", async () => {
    const message = "Invalid schema for function 'lookup': In context=(), 'additionalProperties' is required to be supplied and to be false.";
    const body = { error: { message, type: "invalid_request_error", param: "tools[0].function.parameters", code: "invalid_function_parameters" } };
    const error = await failure("openai-strict", {}, { status: 400, body });
    expect(describeModelFailure(error, { baseURL: "http://openai.test/v1", model: "m" })?.message).toBe(
      `Model endpoint http://openai.test/v1 refused the schema of tool lookup (provided by @acme/plugin-words) (400: ${message}); set "model": {"dialect": "openai"} in the config to send it in a form the endpoint takes (it is sent in the openai-strict dialect)`,
    );
  });

  test("the registry's openai-strict tools are taken by an endpoint with strict mode's rules", async () => {
    expect(await failure("openai-strict", { rules: "openai-strict" })).toBeUndefined();
  });

  test("a 400 naming no tool stays the endpoint's own failure", async () => {
    const error = await failure("openai", {}, { status: 400, body: { error: { message: "model not supported", type: "invalid_request_error" } } });
    expect(describeModelFailure(error, { baseURL: "http://x.test/v1", model: "m" })?.message).toStartWith("Model endpoint http://x.test/v1 answered 400 (model not supported)");
  });
});
