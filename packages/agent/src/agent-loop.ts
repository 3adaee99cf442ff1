/**
 * The agent loop: ask the model (`model-turn.ts`), run the tool calls it proposes
 * (`tool-calls.ts`: together where their tools allow, else in order), answer each call id
 * with exactly one `role: "tool"` message in call order, and repeat until the model answers,
 * the step limit is reached or the signal aborts. Every dependency is passed in.
 */
import type OpenAI from "openai";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import type { Approver, ToolRuntime } from "@plugboard/runtime";
import { type AssistantMessage, type AssistantTurn, assistantMessage, reasoningText, requestTurn, type TokenUsage } from "./model-turn.ts";
import { sealMessage } from "./request-body.ts";
import { runToolCalls } from "./tool-calls.ts";
import { toolSchemaRefusal } from "./tool-schema-refusal.ts";
import { toolOffer } from "./tool-search.ts";

/** What the loop reports while it runs, in order. */
export type AgentEvent =
  | { readonly type: "model_request"; readonly step: number }
  | { readonly type: "text_delta"; readonly text: string }
  /** A piece of the reasoning a provider streams before its answer. */
  | { readonly type: "reasoning_delta"; readonly text: string }
  /** The whole reasoning of one step, when the provider sent any (streamed or not). */
  | { readonly type: "reasoning"; readonly step: number; readonly text: string }
  | { readonly type: "assistant_message"; readonly step: number; readonly message: AssistantMessage }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: string }
  /** A piece of a running call's output, as its tool shows it (`ToolContext.progress`); not what the model gets. */
  | { readonly type: "tool_progress"; readonly id: string; readonly text: string }
  | {
      readonly type: "tool_result";
      readonly id: string;
      readonly name: string;
      readonly content: string;
      readonly isError: boolean;
      /** Secrets replaced by `[redacted: NAME]` in `content` before the model got it; absent when none. */
      readonly redactions?: number;
    };

export interface AgentLoopOptions {
  /** The conversation so far; the loop appends to this array in place. */
  readonly messages: ChatCompletionMessageParam[];
  readonly runtime: ToolRuntime;
  readonly client: OpenAI;
  readonly model: string;
  /** The most model requests this turn may make (at least 1). */
  readonly maxSteps: number;
  readonly signal?: AbortSignal;
  readonly onEvent?: (event: AgentEvent) => void;
  /** Ask for a streamed response and report `text_delta` and `reasoning_delta` events as they arrive. */
  readonly stream?: boolean;
  /**
   * Report `tool_progress` events: each call's output as its tool shows it while it runs
   * (`ToolContext.progress`, given to the tools only then). @default false
   */
  readonly toolProgress?: boolean;
  /** Given to every `execute`: asked when the policy says `ask` (absent: no one to ask). */
  readonly approve?: Approver;
  /** Given to every `execute`: the conversation whose taint the calls are judged under. @default the runtime's session */
  readonly conversation?: string;
}

/**
 * How a turn ended: `answered` with text; `empty` when the model's last answer had neither
 * text nor tool calls (an answer nobody can use, reported rather than passed off as one);
 * `step_limit`; `aborted`.
 */
export type AgentStatus = "answered" | "empty" | "step_limit" | "aborted";

export interface AgentLoopResult {
  readonly status: AgentStatus;
  /** The final assistant text (the last one seen when not answered). */
  readonly text: string;
  /** Model requests made. */
  readonly steps: number;
  /**
   * Present when the model stopped at its output limit (`finish_reason: "length"`) in the
   * answer that ended the turn: its text is cut off.
   */
  readonly cutOff?: true;
  /** The tokens of the turn's model requests, added up, when the endpoint reported any; absent otherwise. */
  readonly usage?: TokenUsage;
}

/**
 * Runs one turn of the conversation.
 *
 * @example
 * const result = await runAgentLoop({ messages, runtime, client, model: "gpt-4.1", maxSteps: 20 });
 */
export async function runAgentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { messages, runtime, maxSteps, signal } = options;
  if (!Number.isInteger(maxSteps) || maxSteps < 1) throw new RangeError(`maxSteps must be a positive integer, got ${maxSteps}`);
  const emit = options.onEvent ?? (() => {});
  // Every tool, or the tool search and the tools it found (tool-search.ts).
  const offer = await toolOffer(runtime, messages);
  let text = "";
  let usage: TokenUsage | undefined;
  const ended = (result: AgentLoopResult): AgentLoopResult => (usage === undefined ? result : { ...result, usage });

  for (let step = 1; step <= maxSteps; step++) {
    if (signal?.aborted) return ended({ status: "aborted", text, steps: step - 1 });
    emit({ type: "model_request", step });
    let turn: AssistantTurn;
    const tools = offer.tools();
    try {
      turn = await requestTurn(
        { ...options, tools, stream: options.stream ?? false, signal, dialect: runtime.registry.dialect },
        { text: (delta) => emit({ type: "text_delta", text: delta }), reasoning: (delta) => emit({ type: "reasoning_delta", text: delta }) },
      );
    } catch (error) {
      // The SDK rejects with its APIUserAbortError only when our signal aborted it.
      if (signal?.aborted) return ended({ status: "aborted", text, steps: step });
      // A 400 about one of the tools sent names that tool and the dialect that fixes it.
      throw toolSchemaRefusal(error, tools, runtime.registry) ?? error;
    }
    text = turn.content ?? "";
    if (turn.usage !== undefined) {
      usage = { promptTokens: (usage?.promptTokens ?? 0) + turn.usage.promptTokens, completionTokens: (usage?.completionTokens ?? 0) + turn.usage.completionTokens };
    }
    const reasoning = reasoningText(turn);
    if (reasoning !== "") emit({ type: "reasoning", step, text: reasoning });
    // Sealed: encoded once for every later request of the conversation (request-body.ts).
    const message = sealMessage(assistantMessage(turn));
    messages.push(message);
    emit({ type: "assistant_message", step, message });
    const cutOff = turn.finishReason === "length";
    if (turn.toolCalls.length === 0) return ended({ status: text === "" ? "empty" : "answered", text, steps: step, ...(cutOff ? { cutOff } : {}) });

    const answered = await runToolCalls(turn.toolCalls, {
      runtime,
      signal,
      approve: options.approve,
      conversation: options.conversation,
      emit,
      progress: options.toolProgress === true,
      cutOff,
      answer: offer.answer,
    });
    for (const { call, result } of answered) messages.push(sealMessage({ role: "tool", tool_call_id: call.id, content: result.content }));
    // The step's results are the conversation's now: an untrusted one taints it from the next step on.
    runtime.resultsEntered(options.conversation);
    if (signal?.aborted) return ended({ status: "aborted", text, steps: step });
  }
  return ended({ status: "step_limit", text, steps: maxSteps });
}
