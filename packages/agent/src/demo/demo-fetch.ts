/**
 * A `fetch` that serves the chat-completions API in-process: JSON for plain requests,
 * server-sent events for `stream: true`. Only `POST …/chat/completions` exists.
 */
import type { ChatCompletionCreateParams } from "openai/resources/chat/completions";
import { sseResponse } from "@plugboard/scripted-model/sse";
import { type DemoReply, demoReply } from "./demo-reply.ts";

/** The base URL a client of the demo model uses; requests never leave the process. */
export const DEMO_BASE_URL = "http://demo-model.invalid/v1";

/** Answers one chat-completions request like an OpenAI-compatible server would. */
export async function demoFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = input instanceof Request ? new Request(input, init) : new Request(input.toString(), init);
  if (request.signal.aborted) throw new DOMException("The operation was aborted.", "AbortError");
  const path = new URL(request.url).pathname;
  if (request.method !== "POST" || !path.endsWith("/chat/completions")) {
    return errorResponse(404, `The demo model only serves POST /chat/completions, not ${request.method} ${path}`);
  }
  let body: ChatCompletionCreateParams;
  try {
    body = (await request.json()) as ChatCompletionCreateParams;
  } catch {
    return errorResponse(400, "The request body is not JSON");
  }
  if (!Array.isArray(body.messages)) return errorResponse(400, "messages must be an array");
  const reply = demoReply(body.messages, body.tools ?? []);
  const id = `chatcmpl-demo-${body.messages.length}`;
  if (body.stream) return sseResponse(200, streamChunks(id, body.model, reply));
  return Response.json(completion(id, body.model, reply));
}

function completion(id: string, model: string, reply: DemoReply): object {
  const toolCalls = reply.toolCalls.map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments },
  }));
  return {
    id,
    object: "chat.completion",
    created: 0,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: reply.content,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
        logprobs: null,
      },
    ],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

function streamChunks(id: string, model: string, reply: DemoReply): object[] {
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id,
    object: "chat.completion.chunk",
    created: 0,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const chunks: object[] = [chunk({ role: "assistant", content: "" })];
  // Word by word, so a terminal shows the answer arriving.
  for (const piece of reply.content?.match(/\S+\s*|\s+/g) ?? []) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }));
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: call.arguments } }] }));
  });
  chunks.push(chunk({}, reply.toolCalls.length > 0 ? "tool_calls" : "stop"));
  return chunks;
}

function errorResponse(status: number, message: string): Response {
  return Response.json({ error: { message, type: "invalid_request_error" } }, { status });
}
