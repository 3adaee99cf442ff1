/**
 * Streamable HTTP at `/mcp`, stateless: every request gets its own server and transport,
 * so any copy behind a load balancer can answer any request. A plain fetch handler: the
 * guards below are a few header checks, done in line (a router's matching cost more than
 * they do, per request). The newest revision
 * (2026-07-28, a request carries all it needs) goes to the SDK's 2.x `createMcpHandler`;
 * the 2025 ones (`initialize` first) to a stateless transport of the same SDK. A bearer token (compared in
 * constant time) guards it when set; without one, the Host header must name a loopback
 * host, so a web page cannot reach the server through DNS rebinding.
 *
 * Before a POST's body is read: a foreign `Origin` is refused (403), a `Content-Type`
 * other than `application/json` too (415), and a body over 4 MiB gets 413, its declared
 * length checked first and its bytes counted as they come. The 413 goes out at once, and
 * the connection closes after the rest of the body has been read and thrown away (up to
 * 32 MiB in all), so that a client still writing reads it.
 *
 * Cancellation: a call ends when its client closes the request (how a 2026-07-28 client
 * cancels); and a 2025 client cancels with `notifications/cancelled` in a later POST, keyed
 * by its session (the `Mcp-Session-Id` this server gives it at `initialize`) and the
 * request's id. That POST may reach another copy: a cancellation not for a call running
 * here is forwarded to the peers.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import { createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import type { ToolRuntime } from "@plugboard/runtime";
import { isBearerToken, isForeignOrigin, isJsonContentType, isLoopbackHostHeader } from "./http-guard.ts";
import { FORWARDED_HEADER, InFlightCalls, type PeerOptions, SESSION_HEADER } from "./in-flight.ts";
import { readBounded, refuseTooLarge } from "./bounded-body.ts";
import { mcpServerFactory, type ServeOptions, type ServerFactory } from "./serve.ts";

/** The largest request body served, as the SDK's own bound. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

/** How much of a body refused for its size is read (and thrown away) before the connection closes. */
const DISCARDED_BODY_BYTES = 32 * 1024 * 1024;

export interface HttpServeOptions extends ServeOptions, Omit<PeerOptions, "token"> {
  /**
   * Required as `Authorization: Bearer TOKEN` on every request when set; without it only
   * requests addressed to a loopback host are answered. Also sent to the peers.
   */
  readonly token?: string;
}

/**
 * A fetch handler serving `runtime` at `/mcp`; give it to `Bun.serve`.
 *
 * @example Bun.serve({ hostname: "127.0.0.1", port: 8808, fetch: mcpHttpHandler(runtime) });
 */
export function mcpHttpHandler(runtime: ToolRuntime, options: HttpServeOptions = {}): (request: Request) => Promise<Response> {
  const guard = options.token === undefined ? loopbackOnly : bearer(options.token);
  const calls = new InFlightCalls(options);
  const factory = mcpServerFactory(runtime, options);
  const modern = createMcpHandler(() => factory(), { legacy: "reject" });
  return async (request) => {
    const refused = guard(request) ?? refusal(request);
    if (refused !== undefined) return refused;
    // Stateless: no session stream to GET, no session to DELETE.
    if (request.method !== "POST") return jsonRpcError(405, -32000, "Method not allowed.", { allow: "POST" });
    const body = await readBounded(request, MAX_BODY_BYTES);
    if (body.tooLarge) {
      const answer = jsonRpcError(413, -32000, `Payload Too Large: a request body may hold at most ${MAX_BODY_BYTES} bytes (4 MiB)`);
      return refuseTooLarge(answer, body, DISCARDED_BODY_BYTES);
    }
    const parsed = parseJson(body.bytes);
    if (parsed === undefined) return jsonRpcError(400, -32700, "Parse error: the request body is not JSON");
    const messages = (Array.isArray(parsed.value) ? parsed.value : [parsed.value]).filter(isMessage);
    const session = request.headers.get(SESSION_HEADER) ?? undefined;
    const cancels = messages.filter((message) => message.method === "notifications/cancelled");
    if (session !== undefined && cancels.length > 0) {
      const forwarded = request.headers.has(FORWARDED_HEADER);
      await Promise.all(cancels.map(({ params }) => (params?.requestId === undefined ? undefined : calls.cancel(session, params.requestId, { forwarded, ...reasonOf(params) }))));
    }
    if (cancels.length > 0 && cancels.length === messages.length) return new Response(null, { status: 202 });
    if (!(await isLegacyRequest(request, parsed.value))) return await modern.fetch(request, { parsedBody: parsed.value });
    // The call ends when the client closes its request, or cancels it (then `calls` aborts it).
    const controller = new AbortController();
    const end = () => controller.abort("the client closed the request");
    request.signal.addEventListener("abort", end, { once: true });
    const forget = session === undefined ? [] : messages.filter(isRequest).map((message) => calls.track(session, message.id, controller));
    try {
      const response = await serveLegacy(factory, request, parsed.value, controller);
      if (messages.some((message) => message.method === "initialize")) response.headers.set(SESSION_HEADER, randomUUID());
      return response;
    } finally {
      request.signal.removeEventListener("abort", end);
      for (const remove of forget) remove();
    }
  };
}

/** Who may call, decided from the headers: a refusal, or undefined to go on. */
type Guard = (request: Request) => Response | undefined;

/** Without a token: only requests addressed to a loopback host (DNS rebinding), and only at `/mcp`. */
function loopbackOnly(request: Request): Response | undefined {
  const host = request.headers.get("host") ?? undefined;
  if (!isLoopbackHostHeader(host)) {
    return new Response(`This server answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1]), not ${host ?? "(none)"}`, { status: 403 });
  }
  return notMcp(request);
}

/**
 * With a token: `Authorization: Bearer TOKEN` on every request, compared in constant time
 * (their SHA-256 digests, so the lengths never differ); then only `/mcp`. The answers are
 * RFC 6750's: 401 without credentials or with wrong ones, 400 for a header that is not a
 * bearer credential.
 */
function bearer(token: string): Guard {
  const expected = createHash("sha256").update(token).digest();
  return (request) => {
    const header = request.headers.get("authorization");
    if (header === null) return challenge(401, 'Bearer realm=""', "Unauthorized");
    const given = /^bearer /i.test(header) ? header.slice(7).trimStart() : "";
    if (!isBearerToken(given)) return challenge(400, 'Bearer error="invalid_request"', "Bad Request");
    if (!timingSafeEqual(createHash("sha256").update(given).digest(), expected)) return challenge(401, 'Bearer error="invalid_token"', "Unauthorized");
    return notMcp(request);
  };
}

function challenge(status: number, wwwAuthenticate: string, text: string): Response {
  return new Response(text, { status, headers: { "www-authenticate": wwwAuthenticate } });
}

function notMcp(request: Request): Response | undefined {
  return new URL(request.url).pathname === "/mcp" ? undefined : new Response("404 Not Found", { status: 404 });
}

/** One 2025-era request through a fresh server and stateless transport, answered as one JSON body; its calls ended by `controller`. */
async function serveLegacy(factory: ServerFactory, request: Request, parsedBody: unknown, controller: AbortController): Promise<Response> {
  const mcp = factory(controller.signal);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await mcp.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody });
  } finally {
    await mcp.close();
  }
}

/** A refusal decided from the headers alone: a web page of another site, a body that is not JSON. */
function refusal(request: Request): Response | undefined {
  const origin = request.headers.get("origin");
  if (isForeignOrigin(origin, request.headers.get("host") ?? undefined)) {
    return new Response(`This server answers only its own pages, not a page of ${origin}`, { status: 403 });
  }
  if (request.method === "POST" && !isJsonContentType(request.headers.get("content-type"))) {
    return jsonRpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
  }
  return undefined;
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers });
}

interface Message {
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: { readonly requestId?: string | number; readonly reason?: unknown };
}

function isMessage(item: unknown): item is Message {
  return typeof item === "object" && item !== null;
}

function isRequest(message: Message): message is Message & { readonly id: string | number } {
  return message.method !== undefined && (typeof message.id === "string" || typeof message.id === "number");
}

function reasonOf(params: Message["params"]): { reason?: string } {
  return typeof params?.reason === "string" ? { reason: params.reason } : {};
}

function parseJson(bytes: Uint8Array): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch {
    return undefined;
  }
}
