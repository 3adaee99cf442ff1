/**
 * The shapes a test writes (scripted replies) and reads back (recorded requests). They are
 * plain structural types so this package needs neither the `openai` SDK nor our core.
 */

/** A tool call the scripted model proposes. */
export interface ScriptedToolCall {
  /** Defaults to `call_1`, `call_2`, … counted over the server's life. */
  readonly id?: string;
  readonly name: string;
  /** JSON text sent as is (so it may be invalid on purpose), or an object to serialize. */
  readonly arguments: string | Readonly<Record<string, unknown>>;
}

/** Why the scripted choice stopped, as the API reports it. */
export type FinishReason = "stop" | "length" | "tool_calls" | "content_filter";

/**
 * The token counts a reply reports in `usage`, or `false` for an endpoint that reports none.
 * @default estimated from the request and the reply (four characters a token)
 */
export type ScriptedUsage = { readonly promptTokens: number; readonly completionTokens: number } | false;

/** The assistant answers with text. */
export interface TextReply {
  readonly content: string;
  /** What `usage` reports (streamed: in the usage chunk, when the request asks for one). */
  readonly usage?: ScriptedUsage;
  /** Sent as `reasoning_content` (DeepSeek's field), before the content when streamed. */
  readonly reasoning?: string;
  /** @default "stop" */
  readonly finishReason?: FinishReason;
}

/** The assistant proposes one or several tool calls, optionally with text before them. */
export interface ToolCallsReply {
  readonly toolCalls: readonly ScriptedToolCall[];
  /** @default null */
  readonly content?: string | null;
  /** Sent as `reasoning_content` (DeepSeek's field), before the content when streamed. */
  readonly reasoning?: string;
  /** @default "tool_calls" */
  readonly finishReason?: FinishReason;
  /** What `usage` reports (streamed: in the usage chunk, when the request asks for one). */
  readonly usage?: ScriptedUsage;
}

/** An HTTP error, as the API sends one before any streaming starts. */
export interface FaultReply {
  readonly status: number;
  /** JSON body, or a string sent verbatim. @default an OpenAI-style `{ error: { … } }` for the status */
  readonly body?: unknown;
  /** Extra response headers, such as `retry-after`. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A body sent exactly as given, for malformed responses. A string goes out verbatim; any
 * other value as JSON. For a streamed request an array becomes one SSE event per element
 * (then `data: [DONE]`), another non-string value a single event.
 */
export interface RawReply {
  readonly raw: unknown;
  /** @default 200 */
  readonly status?: number;
}

/**
 * A streamed answer replayed exactly as a provider sent it, for its quirks (a missing
 * `index`, extra fields, reasoning deltas). An array gives the chunks, each sent as its own
 * `data:` event (a string element verbatim), then `data: [DONE]`; a string is the recorded
 * SSE text, sent event by event as recorded. Only a streamed request may take it.
 */
export interface ReplayReply {
  readonly replay: readonly unknown[] | string;
}

/** Never answers; the request is held until the client disconnects or the server closes. */
export interface HangReply {
  readonly hang: true;
}

/** A reply that is data. */
export type StaticReply = TextReply | ToolCallsReply | FaultReply | RawReply | ReplayReply | HangReply;

/** A reply computed from the request it answers. */
export type ReplyFunction = (request: RecordedRequest) => StaticReply | Promise<StaticReply>;

/** One entry of a script: the answer to one chat-completions request. */
export type ScriptedReply = StaticReply | ReplyFunction;

/** A tool call inside a recorded assistant message; loose, since clients may send other types. */
export interface RecordedToolCall {
  readonly id?: string;
  readonly type?: string;
  readonly function?: { readonly name?: string; readonly arguments?: string };
}

/** A chat message as the client sent it (the SDK's message params are assignable to it). */
export interface RecordedMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly name?: string;
  readonly tool_calls?: readonly RecordedToolCall[];
  readonly tool_call_id?: string;
  /** Reasoning sent back with an assistant message (DeepSeek's and vLLM's field). */
  readonly reasoning_content?: unknown;
  /** Reasoning sent back with an assistant message (OpenRouter's and Ollama's field). */
  readonly reasoning?: unknown;
}

/** A chat-completions request body; `{}` when the body was not a JSON object. */
export interface RecordedBody {
  readonly model?: string;
  readonly messages?: readonly RecordedMessage[];
  readonly tools?: readonly unknown[];
  readonly tool_choice?: unknown;
  readonly stream?: boolean;
  readonly [key: string]: unknown;
}

/** A request the server received, whatever it was answered with. */
export interface RecordedRequest {
  readonly method: string;
  /** The URL path, such as `/v1/chat/completions`. */
  readonly path: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  /** The raw body text. */
  readonly text: string;
  readonly body: RecordedBody;
}
