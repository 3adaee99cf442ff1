/**
 * The HTTP side on Hono: the page at `/`, the API under `/api/`. Every refusal is JSON with
 * the status that says why (403 foreign Host, 401 token, 404 route, 405 method, 415 type).
 */
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { HTTPException } from "hono/http-exception";
import { methodNotAllowed } from "hono/method-not-allowed";
import { secureHeaders } from "hono/secure-headers";
import { approvalRoutes } from "./approvals.ts";
import { elicitationRoutes } from "./elicitations.ts";
import { loopbackHostOnly } from "./binding.ts";
import { type ChatHandlerContext, chatRoutes } from "./chat-handler.ts";
import type { ChatPage } from "./page.ts";

/**
 * What the page shows besides the conversation (`GET /api/info`): the model in use, the
 * example prompts of an empty conversation (requests the demo model understands, for the
 * enabled tools, so a click works with it too), and the tools withheld since they changed or
 * their description was flagged, each with the reason and how to accept it.
 */
export interface PageInfo {
  readonly model: string;
  readonly demo: boolean;
  readonly examples: readonly string[];
  readonly withheld: readonly string[];
}

/** What the routes need. */
export interface HttpAppContext {
  readonly page: ChatPage;
  readonly info: PageInfo;
  readonly token: string | undefined;
  readonly chat: ChatHandlerContext;
  /** Where unexpected failures are reported. */
  readonly log: (line: string) => void;
}

/** The whole HTTP app; `fetch` answers one request. */
export function createHttpApp(ctx: HttpAppContext): Hono {
  const app = new Hono();
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.res ?? c.json({ error: error.message }, error.status);
    ctx.log(`plugboard web: ${error.stack ?? error.message}`);
    return c.json({ error: "Internal server error (details are in the server log)" }, 500);
  });
  app.notFound((c) => c.json({ error: `Not found: ${c.req.path}` }, 404));
  app.use(
    methodNotAllowed({
      app,
      onMethodNotAllowed: (c, methods) =>
        c.json({ error: `Method ${c.req.method} is not allowed here; use ${methods.join(" or ")}` }, 405, { allow: methods.join(", ") }),
    }),
  );
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("cache-control", "no-store");
  });
  // Plain HTTP on loopback: HSTS belongs to the TLS proxy in front, when there is one.
  app.use(secureHeaders({ xFrameOptions: "DENY", strictTransportSecurity: false }));
  if (ctx.token === undefined) app.use(loopbackHostOnly());
  else app.use("/api/*", bearerAuth(bearerOptions(ctx.token)));

  const page = secureHeaders({ contentSecurityPolicy: ctx.page.contentSecurityPolicy });
  app.get("/", page, (c) => c.html(ctx.page.html));
  app.get("/page.js", page, (c) => c.body(ctx.page.script, 200, { "content-type": "text/javascript; charset=utf-8" }));
  app.get("/page.css", page, (c) => c.body(ctx.page.styles, 200, { "content-type": "text/css; charset=utf-8" }));
  app.get("/api/health", (c) => c.json({ ok: true }));
  app.get("/api/info", (c) => c.json(ctx.info));
  app.route("/api", chatRoutes(ctx.chat));
  app.route("/api", approvalRoutes(ctx.chat.approvals));
  app.route("/api", elicitationRoutes(ctx.chat.elicitations));
  return app;
}

/** Every failed check is the same 401 JSON, whatever was wrong with the header. */
function bearerOptions(token: string): Parameters<typeof bearerAuth>[0] {
  const refuse = (): Response =>
    Response.json(
      { error: 'Missing or wrong access token: send "Authorization: Bearer TOKEN"' },
      { status: 401, headers: { "www-authenticate": 'Bearer realm="plugboard"' } },
    );
  return {
    token,
    noAuthenticationHeader: { message: refuse },
    invalidAuthenticationHeader: { message: refuse },
    invalidToken: { message: refuse },
  };
}
