/**
 * `POST /api/chat`: validates the request, runs one turn and answers it as one JSON object
 * or, when the client accepts `text/event-stream`, as server-sent events while it runs.
 */
import type { AgentEvent } from "@plugboard/core";
import { type ChatRequest, readChatRequest } from "./chat-request.ts";
import type { ChatTurnOptions, ChatTurnResult } from "./chat-turn.ts";
import { errorResponse, HttpError, jsonResponse } from "./http.ts";
import { describeModelFailure } from "@plugboard/bootstrap/model";

/** The per-request part of a turn. */
export type TurnInput = Pick<ChatTurnOptions, "history" | "signal" | "stream" | "onEvent">;

/** What the handler needs from the server that owns the runtime and the client. */
export interface ChatHandlerContext {
  readonly maxBodyBytes: number;
  /** The model endpoint and model name, for error messages. */
  readonly endpoint: { readonly baseURL: string; readonly model: string };
  /** Aborted when the server shuts down. */
  readonly shutdown: AbortSignal;
  /** Runs one turn on the shared runtime and client, counted and awaited at shutdown. */
  runTurn(input: TurnInput): Promise<ChatTurnResult>;
  /** Where unexpected failures are reported. */
  readonly log: (line: string) => void;
}

/** Answers one chat request. */
export async function handleChat(request: Request, ctx: ChatHandlerContext): Promise<Response> {
  if (!/^application\/json\b/i.test(request.headers.get("content-type") ?? "")) {
    // Also keeps other web pages out: a cross-site JSON POST needs a CORS preflight we never grant.
    return errorResponse(415, 'Send the chat request as JSON, with "Content-Type: application/json"');
  }
  let chat: ChatRequest;
  try {
    chat = await readChatRequest(request, ctx.maxBodyBytes);
  } catch (error) {
    if (error instanceof HttpError) return errorResponse(error.status, error.message);
    throw error;
  }
  if (ctx.shutdown.aborted) return errorResponse(503, stoppedBody(ctx).error);
  const own = new AbortController();
  // The turn stops when the server shuts down or the client goes away.
  const signal = AbortSignal.any([ctx.shutdown, request.signal, own.signal]);
  const input = { history: chat.messages, signal };
  const wantsEvents = (request.headers.get("accept") ?? "").includes("text/event-stream");
  return wantsEvents ? streamTurn(ctx, input, own) : answerTurn(ctx, input);
}

async function answerTurn(ctx: ChatHandlerContext, input: Pick<TurnInput, "history" | "signal">): Promise<Response> {
  try {
    const result = await ctx.runTurn({ ...input, stream: false });
    if (result.status === "aborted") return errorResponse(503, stoppedBody(ctx).error);
    return jsonResponse(200, result);
  } catch (error) {
    const failure = failureOf(ctx, error);
    return jsonResponse(failure.status, failure.body);
  }
}

function streamTurn(ctx: ChatHandlerContext, input: Pick<TurnInput, "history" | "signal">, own: AbortController): Response {
  const encoder = new TextEncoder();
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (event: string, data: unknown): void => {
        if (!open) return;
        try {
          controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`));
        } catch {
          open = false;
        }
      };
      // A comment first, so the status and headers go out before the model's first word.
      controller.enqueue(encoder.encode(": stream open\n\n"));
      ctx
        .runTurn({ ...input, stream: true, onEvent: (event) => forward(event, send) })
        .then((result) => (result.status === "aborted" ? send("error", stoppedBody(ctx)) : send("done", result)))
        .catch((error: unknown) => send("error", failureOf(ctx, error).body))
        .finally(() => {
          if (!open) return;
          open = false;
          controller.close();
        });
    },
    cancel() {
      open = false;
      own.abort();
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
  });
}

function forward(event: AgentEvent, send: (event: string, data: unknown) => void): void {
  if (event.type === "text_delta") send("text", { text: event.text });
  if (event.type === "tool_call") send("tool_call", { id: event.id, name: event.name, arguments: event.arguments });
  if (event.type === "tool_result") {
    send("tool_result", { id: event.id, name: event.name, content: event.content, isError: event.isError });
  }
}

function stoppedBody(ctx: ChatHandlerContext): { error: string } {
  if (ctx.shutdown.aborted) return { error: "The server is shutting down; the turn was stopped" };
  return { error: "The request was cancelled; the turn was stopped" };
}

/** 502 when the model endpoint is to blame, 500 (logged) for our own failure. */
function failureOf(ctx: ChatHandlerContext, error: unknown): { status: 500 | 502; body: { error: string } } {
  const failure = describeModelFailure(error, ctx.endpoint);
  if (failure) return { status: 502, body: { error: failure.message, ...(failure.status === undefined ? {} : { endpointStatus: failure.status }) } };
  ctx.log(`plugboard web: a chat turn failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return { status: 500, body: { error: "Internal server error: the turn failed (details are in the server log)" } };
}
