/**
 * The Vercel AI SDK's side: `generateText` with the two tools (zod input schemas, checked
 * by the SDK) and `ai/test`'s `MockLanguageModelV4` replaying the script, or over HTTP its
 * OpenAI-compatible provider (`@ai-sdk/openai-compatible`), with `stopWhen: stepCountIs(steps)`.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, type LanguageModel, stepCountIs, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { type LoopOutcome, PROMPT, type ScriptStep } from "./script.ts";
import { ADD_DESCRIPTION, addNumbers, ECHO_DESCRIPTION, echoText } from "./tools.ts";

/** What the mock's `doGenerate` returns (the provider spec's type, without depending on it). */
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4["doGenerate"]>>;

const tools = {
  echo: tool({
    description: ECHO_DESCRIPTION,
    inputSchema: z.object({ text: z.string() }),
    execute: async ({ text }) => echoText(text),
  }),
  add: tool({
    description: ADD_DESCRIPTION,
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => addNumbers(a, b),
  }),
};

const usage: GenerateResult["usage"] = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** The script as the mock model's results, one per `doGenerate` call. */
export function vercelResults(script: readonly ScriptStep[]): GenerateResult[] {
  return script.map((step) => ({
    content:
      step.kind === "answer"
        ? [{ type: "text", text: step.text }]
        : [{ type: "tool-call", toolCallId: step.id, toolName: step.name, input: step.arguments }],
    finishReason: { unified: step.kind === "answer" ? "stop" : "tool-calls", raw: undefined },
    usage,
    warnings: [],
  }));
}

/** A fresh mock model (it records its calls, so each run gets its own). */
export function vercelModel(results: GenerateResult[]): MockLanguageModelV4 {
  return new MockLanguageModelV4({ doGenerate: results });
}

/** The SDK's OpenAI-compatible provider pointed at a chat completions endpoint (`baseURL` ends in /v1). */
export function vercelHttpModel(baseURL: string): LanguageModel {
  return createOpenAICompatible({ name: "bench", baseURL, apiKey: "bench" }).chatModel("bench-model");
}

/** Runs one conversation of at most `steps` model requests. */
export async function runVercelLoop(model: LanguageModel, steps: number): Promise<LoopOutcome> {
  const result = await generateText({ model, tools, stopWhen: stepCountIs(steps), prompt: PROMPT });
  const results = result.steps.flatMap((step) => step.toolResults);
  const last = results.at(-1)?.output;
  return {
    requests: result.steps.length,
    toolResults: results.length,
    lastToolResult: typeof last === "string" ? last : undefined,
    answer: result.text,
  };
}
