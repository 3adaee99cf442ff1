/**
 * The floor on `fetch`: the smallest loop a person would write by hand against a chat
 * completions endpoint without any SDK. `JSON.stringify` the request, `fetch`, `json()`, look
 * the handler up, `JSON.parse` its arguments, call it. No validation, no events, no retries.
 */
import type { LoopOutcome } from "./script.ts";
import { PROMPT } from "./script.ts";
import { FLOOR_HANDLERS, FLOOR_TOOLS } from "./floor-loop.ts";

interface ToolCall {
  readonly id: string;
  readonly type: string;
  readonly function: { readonly name: string; readonly arguments: string };
}

interface Completion {
  readonly choices: readonly { readonly message: { readonly content: string | null; readonly tool_calls?: readonly ToolCall[] } }[];
}

/** Runs one conversation of at most `steps` model requests against `baseURL` (ending in /v1). */
export async function runFetchFloorLoop(baseURL: string, steps: number): Promise<LoopOutcome> {
  const url = `${baseURL}/chat/completions`;
  const headers = { "content-type": "application/json", authorization: "Bearer bench" };
  const messages: unknown[] = [{ role: "user", content: PROMPT }];
  let toolResults = 0;
  let lastToolResult: string | undefined;
  for (let step = 1; step <= steps; step++) {
    const body = JSON.stringify({ model: "bench-model", messages, tools: FLOOR_TOOLS, tool_choice: "auto" });
    const response = await fetch(url, { method: "POST", headers, body });
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    const message = ((await response.json()) as Completion).choices[0]?.message;
    if (!message) throw new Error("no choice");
    messages.push({ role: "assistant", content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    if (!message.tool_calls?.length) return { requests: step, toolResults, lastToolResult, answer: message.content ?? "" };
    for (const call of message.tool_calls) {
      const handler = FLOOR_HANDLERS[call.function.name];
      lastToolResult = handler ? await handler(JSON.parse(call.function.arguments)) : `Unknown tool ${call.function.name}`;
      messages.push({ role: "tool", tool_call_id: call.id, content: lastToolResult });
      toolResults++;
    }
  }
  return { requests: steps, toolResults, lastToolResult, answer: "(step limit)" };
}
