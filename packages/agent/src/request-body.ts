/**
 * The JSON body of a chat completions request, encoded once per message. Every request of a
 * turn sends the whole conversation again, so re-encoding it costs more at every step (and
 * the `openai` SDK's own encoder runs a replacer function over every value). The messages
 * the loop appends are sealed (deeply frozen, so they can never differ from their encoding)
 * and their JSON is kept; a request then encodes only what is new and joins the rest.
 */
import type { Dialect } from "@plugboard/core";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";

/**
 * The request fields each dialect refuses, of those a request can carry: Gemini's
 * OpenAI-compatible endpoint answers 400 `Unknown name "parallel_tool_calls"` (and the same
 * for `stream_options`, with which OpenAI reports a stream's usage).
 */
export const REFUSED_FIELDS: Readonly<Record<Dialect, ReadonlySet<string>>> = {
  openai: new Set(),
  "openai-strict": new Set(),
  gemini: new Set(["parallel_tool_calls", "stream_options"]),
};

const encoded = new WeakMap<object, string>();

/**
 * Freezes `message` and everything in it, and marks it for encoding once: the loop's own
 * assistant and tool messages, which nothing changes after they are appended.
 */
export function sealMessage<T extends object>(message: T): T {
  deepFreeze(message);
  encoded.set(message, JSON.stringify(message));
  return message;
}

/** What a request sends. */
export interface RequestBody {
  readonly model: string;
  readonly messages: readonly ChatCompletionMessageParam[];
  /** Sent with `tool_choice: "auto"` when there are any; absent otherwise. */
  readonly tools: readonly ChatCompletionTool[];
  readonly stream: boolean;
  /**
   * A streamed request asks for its token usage (`stream_options: { include_usage: true }`,
   * a last chunk without choices); false for an endpoint that refused the field. @default true
   */
  readonly streamUsage?: boolean;
  /** Fields it refuses are left out (`REFUSED_FIELDS`). @default "openai" */
  readonly dialect?: Dialect;
}

/**
 * The body as JSON, equal to `JSON.stringify` of `{ model, messages, tools, tool_choice,
 * stream, stream_options }` without the fields its dialect refuses: sealed messages and a tools array seen
 * before reuse their encoding.
 */
export function encodeRequestBody(body: RequestBody): string {
  const messages = body.messages.map((message) => encoded.get(message) ?? JSON.stringify(message));
  const fields: [string, string][] = [
    ["model", JSON.stringify(body.model)],
    ["messages", `[${messages.join(",")}]`],
  ];
  if (body.tools.length > 0) fields.push(["tools", encodedTools(body.tools)], ["tool_choice", '"auto"']);
  if (body.stream) fields.push(["stream", "true"]);
  if (body.stream && body.streamUsage !== false) fields.push(["stream_options", '{"include_usage":true}']);
  const refused = REFUSED_FIELDS[body.dialect ?? "openai"];
  return `{${fields
    .filter(([name]) => !refused.has(name))
    .map(([name, json]) => `"${name}":${json}`)
    .join(",")}}`;
}

/** A tools array's JSON; the loop sends the same array (its own copy) at every step. */
function encodedTools(tools: readonly ChatCompletionTool[]): string {
  let json = encoded.get(tools);
  if (json === undefined) {
    json = JSON.stringify(tools);
    encoded.set(tools, json);
  }
  return json;
}

function deepFreeze(value: object): void {
  Object.freeze(value);
  for (const child of Object.values(value)) {
    if (typeof child === "object" && child !== null && !Object.isFrozen(child)) deepFreeze(child);
  }
}
