/**
 * Turns a text or tool-call reply into what the real API sends: one `chat.completion`
 * object, or the `chat.completion.chunk` sequence of a streamed answer.
 */
import type { FinishReason, ScriptedToolCall, ScriptedUsage, TextReply, ToolCallsReply } from "./types.ts";

/** What every object of one response shares. */
export interface CompletionMeta {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  /** Rough token count of the request, for `usage`. */
  readonly promptTokens: number;
  /** Whether the client asked for a usage chunk (`stream_options.include_usage`). */
  readonly includeUsage: boolean;
}

/** A reply ready to send: tool call ids assigned, arguments serialized. */
export interface AnswerReply {
  readonly content: string | null;
  /** Sent as `reasoning_content`. */
  readonly reasoning: string | undefined;
  readonly toolCalls: readonly { readonly id: string; readonly name: string; readonly arguments: string }[];
  readonly finishReason: FinishReason;
  /** What `usage` reports; absent: estimated. */
  readonly usage: ScriptedUsage | undefined;
}

/** Fills in the defaults of a text or tool-call reply; `nextId` names calls without an id. */
export function answerOf(reply: TextReply | ToolCallsReply, nextId: () => string): AnswerReply {
  const reasoning = reply.reasoning;
  const { usage } = reply;
  if (!("toolCalls" in reply)) return { content: reply.content, reasoning, toolCalls: [], finishReason: reply.finishReason ?? "stop", usage };
  return {
    content: reply.content ?? null,
    reasoning,
    toolCalls: reply.toolCalls.map((call: ScriptedToolCall) => ({
      id: call.id ?? nextId(),
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    })),
    finishReason: reply.finishReason ?? "tool_calls",
    usage,
  };
}

/** The non-streamed `chat.completion` object. */
export function completionObject(answer: AnswerReply, meta: CompletionMeta): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: answer.content, refusal: null, annotations: [] };
  if (answer.reasoning !== undefined) message.reasoning_content = answer.reasoning;
  if (answer.toolCalls.length > 0) {
    message.tool_calls = answer.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  }
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: answer.finishReason }],
    ...(answer.usage === false ? {} : { usage: usage(answer, meta) }),
    service_tier: "default",
    system_fingerprint: null,
  };
}

/**
 * The chunks of a streamed answer, in the real API's order: the role delta, content
 * pieces, per tool call its id/type/name then argument fragments, the finish reason, and
 * the usage chunk when asked for. `data: [DONE]` is the transport's business.
 */
export function completionChunks(answer: AnswerReply, meta: CompletionMeta): Record<string, unknown>[] {
  const chunk = (delta: Record<string, unknown>, finishReason: FinishReason | null = null) => ({
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    service_tier: "default",
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(meta.includeUsage && answer.usage !== false ? { usage: null } : {}),
  });
  const chunks = [chunk({ role: "assistant", content: answer.content === null ? null : "", refusal: null })];
  for (const piece of pieces(answer.reasoning ?? "")) chunks.push(chunk({ reasoning_content: piece }));
  for (const piece of pieces(answer.content ?? "")) chunks.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({
        tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }],
      }),
    );
    for (const piece of pieces(call.arguments)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, answer.finishReason));
  if (!meta.includeUsage || answer.usage === false) return chunks;
  const { choices: _choices, ...last } = chunk({});
  return [...chunks, { ...last, choices: [], usage: usage(answer, meta) }];
}

/** Splits text into up to three pieces on code point boundaries, as deltas arrive. */
export function pieces(text: string): string[] {
  const points = Array.from(text);
  if (points.length === 0) return [];
  const size = Math.ceil(points.length / 3);
  const result: string[] = [];
  for (let start = 0; start < points.length; start += size) result.push(points.slice(start, start + size).join(""));
  return result;
}

/** A rough token estimate (four characters a token), enough for code that reads `usage`. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function usage(answer: AnswerReply, meta: CompletionMeta) {
  if (answer.usage) {
    const { promptTokens, completionTokens } = answer.usage;
    return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
  }
  const produced = (answer.content ?? "") + answer.toolCalls.map((call) => call.name + call.arguments).join("");
  const completionTokens = estimateTokens(produced);
  return {
    prompt_tokens: meta.promptTokens,
    completion_tokens: completionTokens,
    total_tokens: meta.promptTokens + completionTokens,
  };
}
