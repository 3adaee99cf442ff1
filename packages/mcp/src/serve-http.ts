/**
 * Streamable HTTP at `/mcp`, stateless: every request gets its own server and transport,
 * so any copy behind a load balancer can answer any request. A bearer token (compared in
 * constant time) guards it when set; without one, the Host header must name a loopback
 * host, so a web page cannot reach the server through DNS rebinding.
 *
 * Cancellation: a client cancels with a `notifications/cancelled` in a later POST. Calls in
 * flight are indexed by credentials and request id, so that POST cancels the call when it
 * reaches the copy that runs it (with several copies, route a client to one copy).
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { ToolRuntime } from "@plugboard/core/runtime";
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { isLoopbackHostHeader } from "./http-guard.ts";
import { mcpServerFor, type ServeOptions } from "./serve.ts";

export interface HttpServeOptions extends ServeOptions {
  /**
   * Required as `Authorization: Bearer TOKEN` on every request when set; without it only
   * requests addressed to a loopback host are answered.
   */
  readonly token?: string;
}

/**
 * A fetch handler serving `runtime` at `/mcp`; give it to `Bun.serve`.
 *
 * @example Bun.serve({ hostname: "127.0.0.1", port: 8808, fetch: mcpHttpHandler(runtime) });
 */
export function mcpHttpHandler(runtime: ToolRuntime, options: HttpServeOptions = {}): (request: Request) => Promise<Response> {
  const app = new Hono();
  if (options.token === undefined) {
    app.use("*", async (c, next) => {
      const host = c.req.header("host");
      if (!isLoopbackHostHeader(host)) {
        return c.text(`This server answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]), not ${host ?? "(none)"}`, 403);
      }
      await next();
    });
  } else {
    app.use("*", bearerAuth({ token: options.token }));
  }
  const inFlight = new Map<string, McpServer>();
  app.all("/mcp", async (c) => {
    const request = c.req.raw;
    const messages = request.method === "POST" ? await jsonMessages(request) : { body: undefined, list: [] };
    const who = request.headers.get("authorization") ?? "";
    for (const message of messages.list) {
      if (message.method === "notifications/cancelled") void inFlight.get(`${who} ${String(message.params?.requestId)}`)?.close();
    }
    const mcp = mcpServerFor(runtime, options);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await mcp.connect(transport);
    const keys = messages.list.filter((message) => message.id !== undefined).map((message) => `${who} ${String(message.id)}`);
    for (const key of keys) inFlight.set(key, mcp);
    // Closing the server aborts the signals of its calls: a client that hangs up cancels them.
    const close = () => void mcp.close();
    request.signal.addEventListener("abort", close, { once: true });
    try {
      return await transport.handleRequest(request, messages.body === undefined ? {} : { parsedBody: messages.body });
    } finally {
      request.signal.removeEventListener("abort", close);
      for (const key of keys) if (inFlight.get(key) === mcp) inFlight.delete(key);
      await mcp.close();
    }
  });
  return async (request) => await app.fetch(request);
}

interface Message {
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: { readonly requestId?: string | number };
}

/** The POST body's JSON-RPC messages; a body that is not JSON is left to the transport to refuse. */
async function jsonMessages(request: Request): Promise<{ body: unknown; list: Message[] }> {
  let body: unknown;
  try {
    body = await request.clone().json();
  } catch {
    return { body: undefined, list: [] };
  }
  const list = (Array.isArray(body) ? body : [body]).filter((item): item is Message => typeof item === "object" && item !== null);
  return { body, list };
}
