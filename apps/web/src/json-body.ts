/** Shared by the API's POST routes: the body must be JSON by its Content-Type. */
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";

/**
 * Answers 415 unless the request says `Content-Type: application/json`. This also keeps other
 * web pages out: a cross-site JSON POST needs a CORS preflight the server never grants.
 */
export function requireJson(what: string): MiddlewareHandler {
  return createMiddleware(async (c, next) => {
    if (!/^application\/json\b/i.test(c.req.header("content-type") ?? "")) {
      return c.json({ error: `Send ${what} as JSON, with "Content-Type: application/json"` }, 415);
    }
    await next();
  });
}
