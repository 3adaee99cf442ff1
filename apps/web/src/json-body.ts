/** Shared by the API's POST routes: the body must be JSON by its Content-Type, and not too large. */
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";

/**
 * Answers 415 unless the request says `Content-Type: application/json`, and 400 when its body
 * is larger than `maxBytes`. The first also keeps other web pages out: a cross-site JSON POST
 * needs a CORS preflight the server never grants.
 */
export function jsonBody(what: string, maxBytes: number): MiddlewareHandler {
  const limit = bodyLimit({
    maxSize: maxBytes,
    onError: (c) => c.json({ error: `The request body is larger than ${maxBytes} bytes` }, 400),
  });
  return createMiddleware(async (c, next) => {
    if (!/^application\/json\b/i.test(c.req.header("content-type") ?? "")) {
      return c.json({ error: `Send ${what} as JSON, with "Content-Type: application/json"` }, 415);
    }
    return limit(c, next);
  });
}
