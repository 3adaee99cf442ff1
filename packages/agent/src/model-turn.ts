/**
 * One model request of the agent loop and the assistant turn read back from it, plain or
 * streamed. Providers differ from OpenAI in small ways, and a turn is read the way DESIGN
 * ("Model compatibility") asks: streamed tool calls are assembled by `index`, else by `id`,
 * else in order of appearance; a missing `type` means `function`; reasoning text
 * (`reasoning_content`, `reasoning`) is kept so it can be sent back with its message. A call
 * that comes without an id (NVIDIA NIM, vLLM, Bedrock and others send none), or with the id
 * of another call of the same answer, is given one of ours, so every result is tied to
 * exactly one call.
 */
import type { Dialect } from "@plugboard/core";
import type OpenAI from "openai";
import type { Stream } from "openai/core/streaming";
import type {
  ChatCompletion,
  ChatCompletionAssistantMessageParam,
  ChatCompletionChunk,
  ChatCompletionCreateParamsBase,
  ChatCompletionMessageParam,
} from "openai/resources/chat/completions";
import { ModelResponseError } from "./model-response-error.ts";
import { encodeRequestBody } from "./request-body.ts";

/** The reasoning fields providers send beside `content`, kept under the name each used. */
export interface Reasoning {
  readonly reasoning_content?: string;
  readonly reasoning?: string;
}

/** An assistant message as it goes back to the model: the SDK's shape plus its reasoning. */
export type AssistantMessage = ChatCompletionAssistantMessageParam & Reasoning;

/** A tool call the model proposed. */
export interface FunctionCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

/** The tokens a request used, as the endpoint reported them. */
export interface TokenUsage {
  /** `prompt_tokens`: what the request sent. */
  readonly promptTokens: number;
  /** `completion_tokens`: what the model wrote. */
  readonly completionTokens: number;
}

/** What one model request answered. */
export interface AssistantTurn {
  readonly content: string | null;
  readonly reasoning: Reasoning;
  readonly toolCalls: readonly FunctionCall[];
  /** Why the model stopped (`stop`, `tool_calls`, `length`, …), when the provider said. */
  readonly finishReason: string | undefined;
  /**
   * Reasoning sent inside `content` as `thinking` chunks (Mistral's reasoning models): shown,
   * but not sent back (the message goes back with its text only, which Mistral accepts).
   */
  readonly thinking: string;
  /** What the request used, when the endpoint said (a streamed one: in any chunk, usually the last). */
  readonly usage?: TokenUsage;
}

/** What `requestTurn` needs of the loop's options. */
export interface TurnRequest {
  readonly client: OpenAI;
  readonly model: string;
  readonly messages: readonly ChatCompletionMessageParam[];
  readonly tools: NonNullable<ChatCompletionCreateParamsBase["tools"]>;
  readonly stream: boolean;
  readonly signal: AbortSignal | undefined;
  /** The request fields it refuses are left out (`request-body.ts`). */
  readonly dialect?: Dialect;
}

/** Pieces of a streamed turn, as they arrive. */
export interface TurnListener {
  text(delta: string): void;
  reasoning(delta: string): void;
}

const REASONING_FIELDS = ["reasoning_content", "reasoning"] as const;

/** What the endpoint's JSON body is sent with: the SDK then passes it on as it is. */
const JSON_BODY = { "content-type": "application/json" } as const;

/**
 * Asks the model once; rejects with `ModelResponseError` for an answer that is not a usable
 * turn. The body is encoded by `encodeRequestBody` (once per message, not the whole history
 * at every step) and sent through the SDK's `post`, which keeps its headers, retries,
 * errors and stream parsing.
 */
export async function requestTurn(request: TurnRequest, listener: TurnListener): Promise<AssistantTurn> {
  if (!request.stream) return requestOnce(request, listener, false);
  const streamUsage = !refusesStreamOptions.has(request.client);
  try {
    return await requestOnce(request, listener, streamUsage);
  } catch (error) {
    if (!streamUsage || !refusedStreamOptions(error)) throw error;
    // Mistral, among others, refuses fields it does not know (422 `extra_forbidden`); it reports usage unasked.
    refusesStreamOptions.add(request.client);
    return await requestOnce(request, listener, false);
  }
}

/** Clients whose endpoint refused `stream_options`: their streamed requests go without it. */
const refusesStreamOptions = new WeakSet<OpenAI>();

/** Whether the endpoint refused the request for its `stream_options` (a 400 or 422 naming it). */
function refusedStreamOptions(error: unknown): boolean {
  if (!isRecord(error) || (error.status !== 400 && error.status !== 422)) return false;
  return `${String(error.message)} ${JSON.stringify(error.error ?? null)}`.includes("stream_options");
}

async function requestOnce(request: TurnRequest, listener: TurnListener, streamUsage: boolean): Promise<AssistantTurn> {
  const body = encodeRequestBody({ ...request, streamUsage });
  const options = { body, headers: JSON_BODY, stream: request.stream, ...(request.signal ? { signal: request.signal } : {}) };
  if (request.stream) {
    return readStream(await request.client.post<Stream<ChatCompletionChunk>>("/chat/completions", options), listener);
  }
  const completion = await request.client.post<ChatCompletion | undefined>("/chat/completions", options);
  const choice = Array.isArray(completion?.choices) ? completion.choices[0] : undefined;
  if (!choice?.message) throw new ModelResponseError("the response has no choices", endpointError(completion));
  const message: Record<string, unknown> = { ...choice.message };
  const { text, thinking } = contentOf(message.content);
  return {
    content: text,
    thinking,
    reasoning: reasoningOf(message),
    toolCalls: withUniqueIds((Array.isArray(message.tool_calls) ? message.tool_calls : []).map(functionCall)),
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : undefined,
    ...usageOf(completion),
  };
}

/** `{ usage }` of a completion or chunk that reports its token counts; `{}` otherwise. */
function usageOf(body: unknown): { usage?: TokenUsage } {
  const usage = isRecord(body) && isRecord(body.usage) ? body.usage : undefined;
  const { prompt_tokens: promptTokens, completion_tokens: completionTokens } = usage ?? {};
  if (typeof promptTokens !== "number" || typeof completionTokens !== "number") return {};
  return { usage: { promptTokens, completionTokens } };
}

/** The assistant message to append to the conversation, reasoning included. */
export function assistantMessage(turn: AssistantTurn): AssistantMessage {
  if (turn.toolCalls.length === 0) return { role: "assistant", content: turn.content ?? "", ...turn.reasoning };
  return {
    role: "assistant",
    content: turn.content,
    ...turn.reasoning,
    tool_calls: turn.toolCalls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}

/** The reasoning text to show: the first field a provider filled, else the `thinking` chunks of its content. */
export function reasoningText(turn: Pick<AssistantTurn, "reasoning" | "thinking">): string {
  return turn.reasoning.reasoning_content ?? turn.reasoning.reasoning ?? turn.thinking;
}

/**
 * A message's `content`: a string (OpenAI), or a list of chunks (Mistral's reasoning models:
 * `{ type: "text", text }` and `{ type: "thinking", thinking: [{ type: "text", text }] }`),
 * whose text parts are the answer and whose thinking parts are reasoning; other chunks are
 * left out. `text` is null when there is neither a string nor a text chunk.
 */
function contentOf(content: unknown): { text: string | null; thinking: string } {
  if (typeof content === "string") return { text: content, thinking: "" };
  if (!Array.isArray(content)) return { text: null, thinking: "" };
  let text: string | null = null;
  let thinking = "";
  for (const chunk of content) {
    if (!isRecord(chunk)) continue;
    if (chunk.type === "text" && typeof chunk.text === "string") text = (text ?? "") + chunk.text;
    // A thinking chunk holds a string or, in turn, a list of text chunks.
    if (chunk.type === "thinking") thinking += contentOf(chunk.thinking).text ?? "";
  }
  return { text, thinking };
}

async function readStream(stream: AsyncIterable<ChatCompletionChunk>, listener: TurnListener): Promise<AssistantTurn> {
  let content: string | null = null;
  const reasoning: { reasoning_content?: string; reasoning?: string } = {};
  const calls = new CallAssembler();
  let sawChoice = false;
  let finishReason: string | undefined;
  let thinking = "";
  let usage: { usage?: TokenUsage } = {};
  for await (const chunk of stream) {
    const reported = usageOf(chunk);
    if (reported.usage !== undefined) usage = reported;
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    sawChoice = true;
    if (typeof choice.finish_reason === "string") finishReason = choice.finish_reason;
    const delta: Record<string, unknown> = { ...choice.delta };
    const chunked = contentOf(delta.content);
    if (chunked.text !== null && chunked.text !== "") {
      content = (content ?? "") + chunked.text;
      listener.text(chunked.text);
    }
    if (chunked.thinking !== "") {
      thinking += chunked.thinking;
      listener.reasoning(chunked.thinking);
    }
    for (const field of REASONING_FIELDS) {
      const piece = delta[field];
      if (typeof piece !== "string" || piece === "") continue;
      reasoning[field] = (reasoning[field] ?? "") + piece;
      listener.reasoning(piece);
    }
    for (const part of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) calls.add(part);
  }
  if (!sawChoice) throw new ModelResponseError("the streamed response has no choices");
  return { content, reasoning, toolCalls: calls.finish(), finishReason, thinking, ...usage };
}

interface CallSlot {
  id: string;
  type: string;
  name: string;
  arguments: string;
  /** Whether any fragment carried `arguments`: a call that never does has none (`{}`), as in a plain response. */
  argumentsSent: boolean;
}

/**
 * Streamed tool-call fragments, joined into calls: by `index` when the provider sends one
 * (OpenAI), else by `id` (Mistral sends each call whole, with an id and no index), else the
 * fragment continues the call before it (an empty or missing `id` on later chunks).
 */
class CallAssembler {
  readonly #calls: CallSlot[] = [];
  readonly #byIndex = new Map<number, CallSlot>();
  readonly #byId = new Map<string, CallSlot>();
  #current: CallSlot | undefined;

  add(fragment: unknown): void {
    const part = isRecord(fragment) ? fragment : {};
    const index = typeof part.index === "number" ? part.index : undefined;
    const id = typeof part.id === "string" && part.id !== "" ? part.id : undefined;
    const fn = isRecord(part.function) ? part.function : {};
    let slot = index !== undefined ? this.#byIndex.get(index) : id !== undefined ? this.#byId.get(id) : this.#current;
    // A new id at a known index is a new call (some providers number every call 0).
    if (slot && id !== undefined && slot.id !== "" && slot.id !== id) slot = undefined;
    // With neither index nor id, a fragment naming a function starts a new call once the
    // call before it has its name (names come whole, in a call's first fragment).
    if (slot && index === undefined && id === undefined && typeof fn.name === "string" && fn.name !== "" && slot.name !== "") slot = undefined;
    if (!slot) {
      slot = { id: "", type: "", name: "", arguments: "", argumentsSent: false };
      this.#calls.push(slot);
    }
    if (index !== undefined) this.#byIndex.set(index, slot);
    if (id !== undefined && slot.id === "") slot.id = id;
    if (id !== undefined) this.#byId.set(id, slot);
    if (typeof part.type === "string" && part.type !== "") slot.type = part.type;
    if (typeof fn.name === "string") slot.name += fn.name;
    // Some providers send the arguments as an object rather than JSON text; it reads the same.
    if (typeof fn.arguments === "string") slot.arguments += fn.arguments;
    else if (isRecord(fn.arguments)) slot.arguments += JSON.stringify(fn.arguments);
    if (fn.arguments !== undefined && fn.arguments !== null) slot.argumentsSent = true;
    this.#current = slot;
  }

  finish(): FunctionCall[] {
    return withUniqueIds(
      this.#calls.map((slot) =>
        functionCall({ id: slot.id, type: slot.type, function: { name: slot.name, arguments: slot.argumentsSent ? slot.arguments : undefined } }),
      ),
    );
  }
}

/** The message of an `{ error: { message } }` body sent with status 200, if that is what came. */
function endpointError(body: unknown): string | undefined {
  const error = isRecord(body) ? body.error : undefined;
  if (typeof error === "string" && error !== "") return error;
  return isRecord(error) && typeof error.message === "string" && error.message !== "" ? error.message : undefined;
}

/** A complete tool call checked; a missing `type` means `function`. */
function functionCall(raw: unknown): FunctionCall {
  const call = isRecord(raw) ? raw : {};
  const type = call.type === undefined || call.type === null || call.type === "" ? "function" : call.type;
  if (type !== "function") throw new ModelResponseError(`unsupported tool call type "${String(type)}"`);
  const id = typeof call.id === "string" ? call.id : "";
  const fn = isRecord(call.function) ? call.function : {};
  if (typeof fn.name !== "string" || fn.name === "") throw new ModelResponseError(`tool call ${id || "without an id"} has no function name`);
  const args = fn.arguments;
  // No arguments at all, sent as "" by some providers, are an empty object, as when none are sent.
  return { id, name: fn.name, arguments: typeof args === "string" ? (args.trim() === "" ? "{}" : args) : JSON.stringify(args ?? {}) };
}

/** The calls, each call without an id, or with the id of an earlier call, given a new one. */
function withUniqueIds(calls: readonly FunctionCall[]): FunctionCall[] {
  const seen = new Set<string>();
  return calls.map((call) => {
    const id = call.id === "" || seen.has(call.id) ? newCallId() : call.id;
    seen.add(id);
    return id === call.id ? call : { ...call, id };
  });
}

/** An id in OpenAI's form (`call_` and 24 characters), for a call the provider sent without one. */
function newCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

function reasoningOf(message: Record<string, unknown>): Reasoning {
  const reasoning: { reasoning_content?: string; reasoning?: string } = {};
  for (const field of REASONING_FIELDS) {
    const value = message[field];
    if (typeof value === "string" && value !== "") reasoning[field] = value;
  }
  return reasoning;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
