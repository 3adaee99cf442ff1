/**
 * `POST /api/chat`: validates the request, runs one turn and answers it as one JSON object
 * or, when the client accepts `text/event-stream`, as server-sent events while it runs.
 */
import { type AgentEvent, describeModelFailure } from "@plugboard/agent";
import { type Context, Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { PendingApprovals } from "./approvals.ts";
import type { PendingElicitations } from "./elicitations.ts";
import { parseChatRequest } from "./chat-request.ts";
import type { ChatTurnOptions, ChatTurnResult } from "./chat-turn.ts";
import { jsonBody } from "./json-body.ts";

/** The per-request part of a turn. */
export type TurnInput = Pick<ChatTurnOptions, "history" | "signal" | "stream" | "onEvent" | "approve" | "taint">;

/** What the handler needs from the server that owns the runtime and the client. */
export interface ChatHandlerContext {
  readonly maxBodyBytes: number;
  /** The model endpoint and model name, for error messages. */
  readonly endpoint: { readonly baseURL: string; readonly model: string; readonly apiKeySet?: boolean };
  /** Calls waiting for the person; only streamed turns can ask (a JSON request has no one to ask). */
  readonly approvals: PendingApprovals;
  /** Mounted servers' requests for input; shown on the pages of streamed turns only. */
  readonly elicitations: PendingElicitations;
  /** Aborted when the server shuts down. */
  readonly shutdown: AbortSignal;
  /** Runs one turn on the shared runtime and client, counted and awaited at shutdown. */
  runTurn(input: TurnInput): Promise<ChatTurnResult>;
  /** Where unexpected failures, and the model endpoint's, are reported. */
  readonly log: (line: string) => void;
  /** Texts never written to the log (the API key), should an endpoint's message repeat them. */
  readonly secrets?: readonly string[];
}

/** The chat routes, to mount under `/api`. */
export function chatRoutes(ctx: ChatHandlerContext): Hono {
  const routes = new Hono();
  routes.post(
    "/chat",
    jsonBody("the chat request", ctx.maxBodyBytes),
    async (c) => {
      const chat = parseChatRequest(await c.req.arrayBuffer());
      if (ctx.shutdown.aborted) return c.json(stoppedBody(ctx), 503);
      const own = new AbortController();
      // The turn stops when the server shuts down or the client goes away.
      const signal = AbortSignal.any([ctx.shutdown, c.req.raw.signal, own.signal]);
      const input = { history: chat.messages, signal, ...(chat.taint ? { taint: chat.taint } : {}) };
      const wantsEvents = (c.req.header("accept") ?? "").includes("text/event-stream");
      return wantsEvents ? streamTurn(c, ctx, input, own) : answerTurn(c, ctx, input);
    },
  );
  return routes;
}

async function answerTurn(c: Context, ctx: ChatHandlerContext, input: Pick<TurnInput, "history" | "signal" | "taint">): Promise<Response> {
  try {
    const result = await ctx.runTurn({ ...input, stream: false });
    if (result.status === "aborted") return c.json(stoppedBody(ctx), 503);
    return c.json(result);
  } catch (error) {
    const failure = failureOf(ctx, error);
    return c.json(failure.body, failure.status);
  }
}

function streamTurn(c: Context, ctx: ChatHandlerContext, input: Pick<TurnInput, "history" | "signal" | "taint">, own: AbortController): Response {
  return streamSSE(c, async (stream) => {
    stream.onAbort(() => own.abort());
    // Events are written in order, one after the other, however fast the loop emits them.
    let queue = Promise.resolve();
    const send = (event: string, data: unknown): void => {
      queue = queue.then(() => stream.writeSSE({ event, data: JSON.stringify(data) }));
    };
    // A comment first, so the status and headers go out before the model's first word.
    await stream.write(": stream open\n\n");
    using _asking = ctx.elicitations.during((request) => send("elicitation", request));
    try {
      const approve = ctx.approvals.approver(
        (request) => send("approval", request),
        (offer) => send("grant", offer),
      );
      const result = await ctx.runTurn({ ...input, stream: true, approve, onEvent: (event) => forward(event, send) });
      send(result.status === "aborted" ? "error" : "done", result.status === "aborted" ? stoppedBody(ctx) : result);
    } catch (error) {
      send("error", failureOf(ctx, error).body);
    }
    await queue;
  });
}

function forward(event: AgentEvent, send: (event: string, data: unknown) => void): void {
  if (event.type === "text_delta") send("text", { text: event.text });
  if (event.type === "tool_call") send("tool_call", { id: event.id, name: event.name, arguments: event.arguments });
  if (event.type === "tool_result") {
    send("tool_result", { id: event.id, name: event.name, content: event.content, isError: event.isError, ...(event.redactions === undefined ? {} : { redactions: event.redactions }) });
  }
}

function stoppedBody(ctx: ChatHandlerContext): { error: string } {
  if (ctx.shutdown.aborted) return { error: "The server is shutting down; the turn was stopped" };
  return { error: "The request was cancelled; the turn was stopped" };
}

/** 502 when the model endpoint is to blame, 500 (logged) for our own failure. */
function failureOf(ctx: ChatHandlerContext, error: unknown): { status: 500 | 502; body: { error: string } } {
  const failure = describeModelFailure(error, ctx.endpoint);
  if (failure) {
    // One line for whoever runs the server: the person in the page sees the message, not the operator.
    ctx.log(`plugboard web: the model endpoint failed: ${withoutSecrets(failure.message, ctx.secrets ?? []).replace(/\s*\n\s*/g, " ")}`);
    return { status: 502, body: { error: failure.message, ...(failure.status === undefined ? {} : { endpointStatus: failure.status }) } };
  }
  ctx.log(`plugboard web: a chat turn failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return { status: 500, body: { error: "Internal server error: the turn failed (details are in the server log)" } };
}

function withoutSecrets(text: string, secrets: readonly string[]): string {
  return secrets.filter((secret) => secret.length >= 4).reduce((shown, secret) => shown.replaceAll(secret, "***"), text);
}
