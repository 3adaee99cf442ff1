/**
 * The demo model's policy: a user request it understands becomes one tool call (if that
 * tool is in the request's `tools`); tool results become a short summary; anything else
 * gets the list of requests it understands. Deterministic: same messages, same reply.
 */
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import { UNDERSTOOD, parseIntent } from "./intents.ts";
import { summarizeResults, type ToolOutcome } from "./summary.ts";

/** What the demo model answers: text, tool calls, or both. */
export interface DemoReply {
  readonly content: string | null;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
}

/** The demo model's reply to a conversation, given the tools the request offers. */
export function demoReply(messages: readonly ChatCompletionMessageParam[], tools: readonly ChatCompletionTool[]): DemoReply {
  const available = tools.flatMap((tool) => (tool.type === "function" ? [tool.function.name] : []));
  const last = messages.at(-1);
  if (last?.role === "tool") return { content: summarizeResults(pendingOutcomes(messages)), toolCalls: [] };
  if (last?.role !== "user") return { content: help(available), toolCalls: [] };

  const intent = parseIntent(textOf(last.content));
  if (!intent) return { content: help(available), toolCalls: [] };
  if (!available.includes(intent.tool)) {
    return {
      content: `That needs the ${intent.tool} tool, which is not enabled in this app. ${help(available)}`,
      toolCalls: [],
    };
  }
  const id = `call_demo_${messages.length}`;
  return { content: null, toolCalls: [{ id, name: intent.tool, arguments: JSON.stringify(intent.arguments) }] };
}

/** The tool results after the last assistant message, paired with the calls they answer. */
function pendingOutcomes(messages: readonly ChatCompletionMessageParam[]): ToolOutcome[] {
  const start = messages.findLastIndex((message) => message.role === "assistant");
  const assistant = messages[start];
  const calls = assistant?.role === "assistant" ? (assistant.tool_calls ?? []) : [];
  return messages.slice(start + 1).flatMap((message) => {
    if (message.role !== "tool") return [];
    const call = calls.find((candidate) => candidate.id === message.tool_call_id);
    const fn = call?.type === "function" ? call.function : undefined;
    return [{ name: fn?.name ?? "tool", arguments: fn?.arguments ?? "{}", content: textOf(message.content) }];
  });
}

function help(available: readonly string[]): string {
  const known = UNDERSTOOD.filter((entry) => available.includes(entry.tool));
  if (known.length === 0) {
    return "I am the offline demo model and no tools I know are enabled, so there is nothing I can do here.";
  }
  const width = Math.max(...known.map((entry) => entry.example.length));
  return [
    "I am the offline demo model: I only understand these requests:",
    ...known.map((entry) => `  ${entry.example.padEnd(width)}  → ${entry.tool}`),
    "Connect a real model with MODEL_API_KEY (and BASE_URL for endpoints other than OpenAI).",
  ].join("\n");
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : "")).join("");
}
