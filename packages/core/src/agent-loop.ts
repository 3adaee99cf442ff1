/**
 * The agent loop: ask the model, run the tool calls it proposes in order, answer each call
 * id with exactly one `role: "tool"` message, and repeat until the model answers, the step
 * limit is reached or the signal aborts. Every dependency is passed in.
 */
import type OpenAI from "openai";
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import type { Approver } from "./approval.ts";
import type { ToolResult } from "./contract.ts";
import { isCancellation, ModelResponseError, toolErrors } from "./errors.ts";
import type { ToolRuntime } from "./runtime.ts";

/** What the loop reports while it runs, in order. */
export type AgentEvent =
  | { readonly type: "model_request"; readonly step: number }
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "assistant_message"; readonly step: number; readonly message: ChatCompletionAssistantMessageParam }
  | { readonly type: "tool_call"; readonly id: string; readonly name: string; readonly arguments: string }
  | {
      readonly type: "tool_result";
      readonly id: string;
      readonly name: string;
      readonly content: string;
      readonly isError: boolean;
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
  /** Ask for a streamed response and report `text_delta` events as they arrive. */
  readonly stream?: boolean;
  /** Given to every `execute`: asked when the policy says `ask` (absent: no one to ask). */
  readonly approve?: Approver;
}

export type AgentStatus = "answered" | "step_limit" | "aborted";

export interface AgentLoopResult {
  readonly status: AgentStatus;
  /** The final assistant text (the last one seen when not answered). */
  readonly text: string;
  /** Model requests made. */
  readonly steps: number;
}

interface AssistantTurn {
  readonly content: string | null;
  readonly toolCalls: readonly FunctionCall[];
}

interface FunctionCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
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
  const tools = runtime.schemas();
  let text = "";

  for (let step = 1; step <= maxSteps; step++) {
    if (signal?.aborted) return { status: "aborted", text, steps: step - 1 };
    emit({ type: "model_request", step });
    let turn: AssistantTurn;
    try {
      turn = await requestTurn(options, tools, emit);
    } catch (error) {
      // The SDK rejects with its APIUserAbortError only when our signal aborted it.
      if (signal?.aborted) return { status: "aborted", text, steps: step };
      throw error;
    }
    text = turn.content ?? "";
    const message = assistantMessage(turn);
    messages.push(message);
    emit({ type: "assistant_message", step, message });
    if (turn.toolCalls.length === 0) return { status: "answered", text, steps: step };

    for (const call of turn.toolCalls) {
      emit({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
      const result = signal?.aborted ? toolErrors.cancelled() : await executeCall(runtime, call, options);
      messages.push({ role: "tool", tool_call_id: call.id, content: result.content });
      emit({ type: "tool_result", id: call.id, name: call.name, content: result.content, isError: result.isError });
    }
    if (signal?.aborted) return { status: "aborted", text, steps: step };
  }
  return { status: "step_limit", text, steps: maxSteps };
}

async function requestTurn(
  options: AgentLoopOptions,
  tools: ChatCompletionCreateParamsBase["tools"] & object,
  emit: (event: AgentEvent) => void,
): Promise<AssistantTurn> {
  const body = {
    model: options.model,
    messages: options.messages,
    ...(tools.length > 0 ? { tools, tool_choice: "auto" as const } : {}),
  };
  const requestOptions = options.signal ? { signal: options.signal } : {};
  if (options.stream) {
    const stream = await options.client.chat.completions.create({ ...body, stream: true }, requestOptions);
    return readStream(stream, emit);
  }
  const completion = await options.client.chat.completions.create(body, requestOptions);
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (!choice?.message) throw new ModelResponseError("the response has no choices");
  return {
    content: typeof choice.message.content === "string" ? choice.message.content : null,
    toolCalls: (choice.message.tool_calls ?? []).map(functionCall),
  };
}

async function readStream(
  stream: AsyncIterable<OpenAI.Chat.Completions.ChatCompletionChunk>,
  emit: (event: AgentEvent) => void,
): Promise<AssistantTurn> {
  let content: string | null = null;
  let sawChoice = false;
  const calls: { id?: string; type?: string; name: string; arguments: string }[] = [];
  for await (const chunk of stream) {
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    sawChoice = true;
    const delta = choice.delta;
    if (typeof delta?.content === "string" && delta.content !== "") {
      content = (content ?? "") + delta.content;
      emit({ type: "text_delta", text: delta.content });
    }
    for (const part of delta?.tool_calls ?? []) {
      const slot = calls[part.index] ?? { name: "", arguments: "" };
      calls[part.index] = slot;
      if (part.id) slot.id = part.id;
      if (part.type) slot.type = part.type;
      if (part.function?.name) slot.name += part.function.name;
      if (part.function?.arguments) slot.arguments += part.function.arguments;
    }
  }
  if (!sawChoice) throw new ModelResponseError("the streamed response has no choices");
  return {
    content,
    toolCalls: calls.filter(Boolean).map((call) =>
      functionCall({
        id: call.id ?? "",
        type: (call.type ?? "function") as "function",
        function: { name: call.name, arguments: call.arguments },
      }),
    ),
  };
}

async function executeCall(runtime: ToolRuntime, call: FunctionCall, options: AgentLoopOptions): Promise<ToolResult> {
  const { signal, approve } = options;
  try {
    return await runtime.execute(call.name, call.arguments, { callId: call.id, ...(signal ? { signal } : {}), ...(approve ? { approve } : {}) });
  } catch (error) {
    // An approval cut short by the abort (a handler's abort is the runtime's business): its
    // call id still gets a result and the turn ends as aborted.
    if (signal && isCancellation(error, signal)) return toolErrors.cancelled();
    throw error;
  }
}

function functionCall(call: ChatCompletionMessageToolCall): FunctionCall {
  if (call.type !== "function") throw new ModelResponseError(`unsupported tool call type "${String(call.type)}"`);
  if (typeof call.id !== "string" || call.id === "") throw new ModelResponseError("a tool call has no id");
  if (typeof call.function?.name !== "string" || call.function.name === "") {
    throw new ModelResponseError(`tool call ${call.id} has no function name`);
  }
  const args = call.function.arguments;
  return { id: call.id, name: call.function.name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) };
}

function assistantMessage(turn: AssistantTurn): ChatCompletionAssistantMessageParam {
  if (turn.toolCalls.length === 0) return { role: "assistant", content: turn.content ?? "" };
  return {
    role: "assistant",
    content: turn.content,
    tool_calls: turn.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}
