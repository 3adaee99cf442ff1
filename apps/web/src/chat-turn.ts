/**
 * One chat turn: a fresh messages array (the server's system message, then the client's
 * history), one run of the agent loop on the shared runtime and client, and a summary of
 * the tool calls it made, with the conversation's taint (which the client keeps and sends back).
 */
import { type AgentEvent, type AgentStatus, runAgentLoop } from "@plugboard/agent";
import type { Approver, Taint, ToolRuntime } from "@plugboard/runtime";
import type OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { ChatMessage } from "./chat-request.ts";

/** A tool call as the API reports it. */
export interface ToolCallSummary {
  readonly name: string;
  readonly arguments: string;
  readonly isError: boolean;
}

/** What a finished turn answers; `aborted` never reaches a client as a success. */
export interface ChatTurnResult {
  readonly reply: string;
  readonly status: AgentStatus;
  readonly toolCalls: readonly ToolCallSummary[];
  /** Present when the model stopped at its output limit: `reply` is cut off. */
  readonly cutOff?: true;
  /** The conversation's taint after the turn, for the page to send with the next one; absent while untainted. */
  readonly taint?: Taint;
}

/** Everything one turn needs; the runtime and client are shared by every request. */
export interface ChatTurnOptions {
  readonly runtime: ToolRuntime;
  readonly client: OpenAI;
  readonly model: string;
  readonly maxSteps: number;
  readonly systemPrompt: string;
  readonly history: readonly ChatMessage[];
  readonly signal: AbortSignal;
  /** Stream the model's text (`text_delta` events) instead of waiting for whole answers. */
  readonly stream: boolean;
  readonly onEvent?: (event: AgentEvent) => void;
  /** Asked when the policy says `ask`; without it such calls are refused (no one to ask). */
  readonly approve?: Approver;
  /** The conversation's taint before the turn, as the client kept it. @default none */
  readonly taint?: Taint;
}

/**
 * Runs one turn. Throws whatever the loop throws (model failures included).
 *
 * @example const { reply } = await runChatTurn({ runtime, client, model, maxSteps: 20, systemPrompt, history, signal, stream: false });
 */
export async function runChatTurn(options: ChatTurnOptions): Promise<ChatTurnResult> {
  // A new array per request: nothing of one conversation can reach another.
  const messages: ChatCompletionMessageParam[] = [
    { role: "system", content: options.systemPrompt },
    ...options.history.map((message) => ({ role: message.role, content: message.content })),
  ];
  const toolCalls: { name: string; arguments: string; isError: boolean }[] = [];
  // Ids are the model's; a careless one may repeat them across steps, so the latest wins.
  const byId = new Map<string, { isError: boolean }>();
  // The conversation lives in the page, its taint too: the runtime holds it for this turn only, under a name of its own.
  const conversation = crypto.randomUUID();
  options.runtime.restoreTaint(options.taint, conversation);
  let taint: Taint | undefined;
  const result = await runAgentLoop({
    messages,
    runtime: options.runtime,
    client: options.client,
    model: options.model,
    maxSteps: options.maxSteps,
    signal: options.signal,
    stream: options.stream,
    ...(options.approve ? { approve: options.approve } : {}),
    conversation,
    onEvent: (event) => {
      if (event.type === "tool_call") {
        const call = { name: event.name, arguments: event.arguments, isError: false };
        toolCalls.push(call);
        byId.set(event.id, call);
      }
      if (event.type === "tool_result") {
        const call = byId.get(event.id);
        if (call) call.isError = event.isError;
      }
      options.onEvent?.(event);
    },
  }).finally(() => {
    taint = options.runtime.taint(conversation);
    options.runtime.restoreTaint(undefined, conversation);
  });
  return { reply: result.text, status: result.status, toolCalls, ...(result.cutOff ? { cutOff: true as const } : {}), ...(taint ? { taint } : {}) };
}
