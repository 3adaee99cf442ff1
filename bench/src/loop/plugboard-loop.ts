/** Plugboard's side: `runAgentLoop` + `ToolRuntime` with the two tools, on any `openai` client. */
import { type Workspace, ToolRegistry } from "@plugboard/core";
import { runAgentLoop } from "@plugboard/agent";
import { ToolRuntime } from "@plugboard/runtime";
import type OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { type LoopOutcome, PROMPT } from "./script.ts";
import { plugboardTools } from "./tools.ts";

/** A runtime holding the two loop tools. */
export function loopRuntime(workspace: Workspace): ToolRuntime {
  return new ToolRuntime(new ToolRegistry(plugboardTools), { workspace });
}

/** Runs one conversation of `steps` model requests through Plugboard's agent loop. */
export async function runPlugboardLoop(client: OpenAI, runtime: ToolRuntime, steps: number): Promise<LoopOutcome> {
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: PROMPT }];
  const result = await runAgentLoop({ messages, runtime, client, model: "bench-model", maxSteps: steps });
  const tools = messages.filter((message) => message.role === "tool");
  const last = tools.at(-1)?.content;
  return {
    requests: result.steps,
    toolResults: tools.length,
    lastToolResult: typeof last === "string" ? last : undefined,
    answer: result.status === "answered" ? result.text : `(${result.status})`,
  };
}
