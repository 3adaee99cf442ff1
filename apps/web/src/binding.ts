/**
 * Where the server may listen and which `Host` headers it answers. Without a token only
 * loopback is allowed: anyone who can reach the port could otherwise spend the model and
 * run the tools.
 */
import { PlugboardError } from "@plugboard/bootstrap";
import { isBearerToken, isLoopbackHost, isLoopbackHostHeader } from "@plugboard/mcp/http-guard";
import type { MiddlewareHandler } from "hono";
import { createMiddleware } from "hono/factory";

export { isLoopbackHost };

/**
 * Refuses a non-loopback address when no token is configured.
 * Throws `PlugboardError` (`USAGE`) saying how to fix it.
 */
export function checkBinding(host: string, token: string | undefined): void {
  if (token !== undefined && token === "") {
    throw new PlugboardError("USAGE", "The access token is empty: give --token (or PLUGBOARD_WEB_TOKEN) a secret value.");
  }
  if (token !== undefined && !isBearerToken(token)) {
    throw new PlugboardError(
      "USAGE",
      "The access token may hold only letters, digits and - . _ ~ + / (then = signs), as an Authorization header can carry it: " +
        "generate one with, for example, openssl rand -hex 32.",
    );
  }
  if (isLoopbackHost(host) || token !== undefined) return;
  throw new PlugboardError(
    "USAGE",
    `Refusing to listen on ${host} without an access token: anyone who can reach it could use your model and tools. ` +
      "Set a token with --token TOKEN or the PLUGBOARD_WEB_TOKEN environment variable (clients then send " +
      '"Authorization: Bearer TOKEN"), or listen on loopback only with --host 127.0.0.1.',
  );
}

/**
 * Answers 403 to any request whose `Host` header is not a loopback name. Used when no token
 * is set, so a foreign web page cannot reach the server through DNS rebinding.
 */
export function loopbackHostOnly(): MiddlewareHandler {
  return createMiddleware(async (c, next) => {
    if (!isLoopbackHostHeader(c.req.header("host"))) {
      return c.json({ error: "This server answers only requests addressed to a loopback host (localhost, 127.0.0.1, [::1])" }, 403);
    }
    await next();
  });
}
