/**
 * The routes: the page at `/`, the API under `/api/`. Every refusal is JSON, with the
 * status that says why (403 foreign Host, 401 token, 404 route, 405 method).
 */
import { bearerMatches } from "./auth.ts";
import { hostHeaderIsLoopback } from "./binding.ts";
import { type ChatHandlerContext, handleChat } from "./chat-handler.ts";
import { errorResponse, jsonResponse } from "./http.ts";
import { type ChatPage, pageResponse } from "./page.ts";

/** What routing needs. */
export interface RouteContext {
  readonly page: ChatPage;
  readonly token: string | undefined;
  readonly chat: ChatHandlerContext;
}

/** Answers one request. */
export function route(request: Request, ctx: RouteContext): Response | Promise<Response> {
  if (ctx.token === undefined && !hostHeaderIsLoopback(request)) {
    return errorResponse(403, "This server answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1])");
  }
  const { pathname } = new URL(request.url);
  if (pathname === "/") return allow(request, ["GET", "HEAD"]) ?? pageResponse(ctx.page, request.method);
  if (!pathname.startsWith("/api/")) return notFound(pathname);
  if (ctx.token !== undefined && !bearerMatches(request.headers.get("authorization"), ctx.token)) {
    return errorResponse(401, 'Missing or wrong access token: send "Authorization: Bearer TOKEN"', {}, {
      "www-authenticate": 'Bearer realm="plugboard"',
    });
  }
  if (pathname === "/api/health") return allow(request, ["GET", "HEAD"]) ?? jsonResponse(200, { ok: true });
  if (pathname === "/api/chat") return allow(request, ["POST"]) ?? handleChat(request, ctx.chat);
  return notFound(pathname);
}

/** A 405 when the method is not one of `methods`, otherwise undefined. */
function allow(request: Request, methods: readonly string[]): Response | undefined {
  if (methods.includes(request.method)) return undefined;
  return errorResponse(405, `Method ${request.method} is not allowed here; use ${methods.join(" or ")}`, {}, {
    allow: methods.join(", "),
  });
}

function notFound(pathname: string): Response {
  return errorResponse(404, `Not found: ${pathname}`);
}
