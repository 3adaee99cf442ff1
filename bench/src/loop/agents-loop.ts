/**
 * The OpenAI Agents SDK's side: `run(agent, …, { maxTurns })` with the two tools (zod
 * parameters, checked by the SDK) and a scripted `Model` that returns the next reply, or over
 * HTTP its `OpenAIChatCompletionsModel` on the `openai` client.
 * Tracing is turned off, so nothing is exported.
 */
import {
  Agent,
  type AgentOutputItem,
  type Model,
  type ModelResponse,
  OpenAIChatCompletionsModel,
  run,
  setTracingDisabled,
  type StreamEvent,
  tool,
  Usage,
} from "@openai/agents";
import type OpenAI from "openai";
import { z } from "zod";
import { type LoopOutcome, PROMPT, type ScriptStep } from "./script.ts";
import { ADD_DESCRIPTION, addNumbers, ECHO_DESCRIPTION, echoText } from "./tools.ts";

setTracingDisabled(true);

const tools = [
  tool({
    name: "echo",
    description: ECHO_DESCRIPTION,
    parameters: z.object({ text: z.string() }),
    execute: async ({ text }) => echoText(text),
  }),
  tool({
    name: "add",
    description: ADD_DESCRIPTION,
    parameters: z.object({ a: z.number(), b: z.number() }),
    execute: async ({ a, b }) => addNumbers(a, b),
  }),
];

/** A `Model` that answers each request with the next scripted output. */
class ScriptedAgentsModel implements Model {
  readonly #outputs: readonly AgentOutputItem[][];
  #next = 0;

  constructor(outputs: readonly AgentOutputItem[][]) {
    this.#outputs = outputs;
  }

  async getResponse(): Promise<ModelResponse> {
    const output = this.#outputs[this.#next++];
    if (output === undefined) throw new Error("the script is exhausted");
    return { usage: new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 }), output };
  }

  // biome-ignore lint/correctness/useYield: the loop never asks for a stream
  async *getStreamedResponse(): AsyncIterable<StreamEvent> {
    throw new Error("not scripted");
  }
}

/** The script as the model's outputs, one per request. */
export function agentsOutputs(script: readonly ScriptStep[]): AgentOutputItem[][] {
  return script.map((step, index) =>
    step.kind === "answer"
      ? [
          {
            type: "message",
            id: `msg_${index}`,
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: step.text }],
          },
        ]
      : [{ type: "function_call", id: step.id, callId: step.id, name: step.name, arguments: step.arguments, status: "completed" }],
  );
}

/** A fresh agent around a fresh scripted model. */
export function scriptedAgent(outputs: readonly AgentOutputItem[][]): Agent {
  return new Agent({ name: "bench", instructions: "Run the tools.", model: new ScriptedAgentsModel(outputs), tools });
}

/** An agent on the SDK's own chat completions model, over `client` (the `openai` SDK). */
export function httpAgent(client: OpenAI): Agent {
  // No instructions: the request carries the same messages as every other loop's.
  return new Agent({ name: "bench", model: new OpenAIChatCompletionsModel(client, "bench-model"), tools });
}

/** Runs one conversation of at most `steps` model requests. */
export async function runAgentsLoop(agent: Agent, steps: number): Promise<LoopOutcome> {
  const result = await run(agent, PROMPT, { maxTurns: steps });
  const outputs = result.newItems.filter((item) => item.type === "tool_call_output_item");
  const last = outputs.at(-1)?.output;
  return {
    requests: result.rawResponses.length,
    toolResults: outputs.length,
    lastToolResult: typeof last === "string" ? last : undefined,
    answer: String(result.finalOutput ?? ""),
  };
}
