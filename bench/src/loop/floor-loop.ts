/**
 * The floor: the smallest loop a person would write by hand on the `openai` SDK. No
 * validation, no events, no error handling: look the handler up, `JSON.parse`, call it.
 */
import type OpenAI from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { type LoopOutcome, PROMPT } from "./script.ts";
import { ADD_DESCRIPTION, addNumbers, ECHO_DESCRIPTION, echoText } from "./tools.ts";

// Async like every real tool (and like the other loops' handlers).
export const FLOOR_HANDLERS: Record<string, (args: Record<string, unknown>) => Promise<string>> = {
  echo: async (args) => echoText(String(args.text)),
  add: async (args) => addNumbers(Number(args.a), Number(args.b)),
};

/** The two tools' JSON Schemas, written out by hand as a person would. */
export const FLOOR_TOOLS: ChatCompletionTool[] = [
  {
    type: "function",
    function: {
      name: "echo",
      description: ECHO_DESCRIPTION,
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
  },
  {
    type: "function",
    function: {
      name: "add",
      description: ADD_DESCRIPTION,
      parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
    },
  },
];

/** Runs one conversation of at most `steps` model requests. */
export async function runFloorLoop(client: OpenAI, steps: number): Promise<LoopOutcome> {
  const messages: ChatCompletionMessageParam[] = [{ role: "user", content: PROMPT }];
  let toolResults = 0;
  let lastToolResult: string | undefined;
  for (let step = 1; step <= steps; step++) {
    const completion = await client.chat.completions.create({ model: "bench-model", messages, tools: FLOOR_TOOLS, tool_choice: "auto" });
    const message = completion.choices[0]?.message;
    if (!message) throw new Error("no choice");
    // Only what the next request needs, as Plugboard sends it: the SDK's extra response
    // fields (refusal, annotations) would make the floor serialize more, not less.
    messages.push({ role: "assistant", content: message.content, ...(message.tool_calls ? { tool_calls: message.tool_calls } : {}) });
    if (!message.tool_calls?.length) return { requests: step, toolResults, lastToolResult, answer: message.content ?? "" };
    for (const call of message.tool_calls) {
      if (call.type !== "function") continue;
      const handler = FLOOR_HANDLERS[call.function.name];
      lastToolResult = handler ? await handler(JSON.parse(call.function.arguments)) : `Unknown tool ${call.function.name}`;
      messages.push({ role: "tool", tool_call_id: call.id, content: lastToolResult });
      toolResults++;
    }
  }
  return { requests: steps, toolResults, lastToolResult, answer: "(step limit)" };
}
