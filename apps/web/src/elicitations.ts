/**
 * Web elicitation: when a mounted MCP server asks the person for input, the request is shown
 * as a card on the page of every streamed turn running now (the `elicitation` event), and
 * waits for `POST /api/elicitations/ID`. An answer that does not fit the server's schema is
 * refused (400, the problems listed) and the card stays to be corrected. With no turn on a
 * page, there is no one to ask: the request is declined; a turn that ends meanwhile (its
 * page went away, the server stops) cancels it.
 */
import type { ElicitationAnswer, ElicitationRequest, Elicitor, FormField } from "@plugboard/mcp";
import { answerProblems } from "@plugboard/mcp/elicitation";
import { Hono } from "hono";
import * as v from "valibot";
import { jsonBody } from "./json-body.ts";

/** The body of `POST /api/elicitations/ID`. */
export const ElicitationAnswerSchema = v.variant("action", [
  v.strictObject({ action: v.literal("accept"), content: v.record(v.string(), v.union([v.string(), v.number(), v.boolean(), v.array(v.string())])) }),
  v.strictObject({ action: v.picklist(["decline", "cancel"]) }),
]);

/** What the page is told about a request waiting for it. */
export interface ElicitationEvent {
  readonly id: string;
  readonly server: string;
  readonly message: string;
  readonly fields: readonly FormField[];
}

type Show = (event: ElicitationEvent) => void;

interface Waiting {
  readonly request: ElicitationRequest;
  readonly resolve: (answer: ElicitationAnswer) => void;
}

/** The requests waiting for the page, and the turns that can show them; one per server. */
export class PendingElicitations {
  readonly #waiting = new Map<string, Waiting>();
  readonly #pages = new Set<Show>();
  #next = 1;

  /** How many requests wait now. */
  get size(): number {
    return this.#waiting.size;
  }

  /** How many streamed turns' pages are shown the requests now (none: a request is declined). */
  get showing(): number {
    return this.#pages.size;
  }

  /** The elicitor to build the app with. */
  readonly elicit: Elicitor = (request, signal) => {
    if (this.#pages.size === 0) return Promise.resolve({ action: "decline" });
    return new Promise<ElicitationAnswer>((resolve) => {
      const id = `elicitation-${this.#next++}`;
      const settle = (answer: ElicitationAnswer) => {
        this.#waiting.delete(id);
        signal.removeEventListener("abort", cancel);
        resolve(answer);
      };
      const cancel = () => settle({ action: "cancel" });
      if (signal.aborted) return cancel();
      signal.addEventListener("abort", cancel, { once: true });
      this.#waiting.set(id, { request, resolve: settle });
      const event = { id, server: request.server, message: request.message, fields: request.fields };
      for (const show of this.#pages) show(event);
    });
  };

  /** While a streamed turn runs, its page is shown the requests; when the last page's turn ends, those waiting are cancelled. */
  during(show: Show): Disposable {
    this.#pages.add(show);
    return {
      [Symbol.dispose]: () => {
        this.#pages.delete(show);
        if (this.#pages.size > 0) return;
        for (const { resolve } of [...this.#waiting.values()]) resolve({ action: "cancel" });
      },
    };
  }

  /** Answers request `id`: `missing` when none waits under it, else the problems of a refused answer (none: accepted). */
  answer(id: string, answer: ElicitationAnswer): "missing" | readonly string[] {
    const waiting = this.#waiting.get(id);
    if (waiting === undefined) return "missing";
    const problems = answer.action === "accept" ? answerProblems(waiting.request, answer.content) : [];
    if (problems.length === 0) waiting.resolve(answer);
    return problems;
  }
}

/** `POST /api/elicitations/:id`, to mount under `/api`. */
export function elicitationRoutes(pending: PendingElicitations): Hono {
  const routes = new Hono();
  routes.post("/elicitations/:id", jsonBody("the answer", 64 * 1024), async (c) => {
    const parsed = v.safeParse(ElicitationAnswerSchema, await c.req.json().catch(() => undefined));
    if (!parsed.success) {
      return c.json({ error: 'Invalid answer: expected {"action": "accept", "content": {FIELD: value}} or {"action": "decline" or "cancel"}' }, 400);
    }
    const id = c.req.param("id");
    const problems = pending.answer(id, parsed.output);
    if (problems === "missing") return c.json({ error: `No request for input waits under the id ${id}` }, 404);
    if (problems.length > 0) return c.json({ error: `The answer does not fit the form: ${problems.join("; ")}`, problems }, 400);
    return c.json({ ok: true });
  });
  return routes;
}
