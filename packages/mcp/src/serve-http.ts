/**
 * Streamable HTTP at `/mcp`, stateless: every request gets its own server and transport,
 * so any copy behind a load balancer can answer any request. A bearer token (compared in
 * constant time) guards it when set; the Host header must name an allowed host, so a web
 * page cannot reach a loopback server through DNS rebinding.
 *
 * Cancellation: a client cancels with a `notifications/cancelled` in a later POST. Calls in
 * flight are indexed by credentials and request id, so that POST cancels the call when it
 * reaches the copy that runs it (with several copies, route a client to one copy).
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { ToolRuntime } from "@plugboard/core";
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { mcpServerFor, type ServeOptions } from "./serve.ts";

export interface HttpServeOptions extends ServeOptions {
  /** Required as `Authorization: Bearer TOKEN` on every request when set. */
  readonly token?: string;
  /** Host names (without port) the Host header may carry. */
  readonly allowedHosts: readonly string[];
}

/** The names of this machine's loopback interface, always allowed. */
export const LOOPBACK_HOSTS = ["127.0.0.1", "localhost", "[::1]"] as const;

/**
 * A fetch handler serving `runtime` at `/mcp`; give it to `Bun.serve`.
 *
 * @example Bun.serve({ hostname: "127.0.0.1", port: 8808, fetch: mcpHttpHandler(runtime, { allowedHosts: [...LOOPBACK_HOSTS] }) });
 */
export function mcpHttpHandler(runtime: ToolRuntime, options: HttpServeOptions): (request: Request) => Promise<Response> {
  const allowed = new Set(options.allowedHosts.map((host) => host.toLowerCase()));
  const app = new Hono();
  app.use("*", async (c, next) => {
    const host = c.req.header("host");
    if (host === undefined || !allowed.has(hostname(host))) return c.text(`Host not allowed: ${host ?? "(none)"}`, 403);
    await next();
  });
  if (options.token !== undefined) app.use("/mcp", bearerAuth({ token: options.token }));
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

/** `example.com:8080` → `example.com`; `[::1]:8080` → `[::1]`. */
function hostname(host: string): string {
  const lower = host.toLowerCase();
  if (lower.startsWith("[")) return lower.slice(0, lower.indexOf("]") + 1);
  return lower.split(":")[0] ?? lower;
}
