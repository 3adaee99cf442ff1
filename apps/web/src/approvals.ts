/**
 * Web approvals: when the policy says `ask`, the call waits here while the page shows an
 * approval card (the `approval` event of the turn's stream) until someone answers
 * `POST /api/approvals/ID`, or the turn ends (its client went away, the server stops), which
 * refuses the call. A bash card offers "always for commands like this" (`like`: the rule the
 * runtime derived from the command's leading words); answered with `"always": "commands"`,
 * the runtime remembers that rule, and it allows such calls without a card until the server
 * stops, judged as the policy judges. A call the sandbox refused for lack of a grant its plugin
 * may be given waits likewise, as a grant card (the `grant` event): answered with `"grant":
 * "once" | "session" | "saved"`, it runs again with that grant; denied, the refusal stays.
 */
import { type ApprovalAnswer, type ApprovalRequest, type Approver, describeGrant } from "@plugboard/runtime";
import { Hono } from "hono";
import * as v from "valibot";
import { jsonBody } from "./json-body.ts";

/** The body of `POST /api/approvals/ID`. */
export const ApprovalAnswerSchema = v.strictObject({
  decision: v.picklist(["allow", "deny"]),
  reason: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  always: v.optional(v.literal("commands")),
  grant: v.optional(v.picklist(["once", "session", "saved"])),
});

/** What the page is told about a call waiting for it: `{ id, tool, arguments, like?, change?, tainted? }` (`change`: a write's diff or an edit's, bounded rows; `tainted`: why a person must answer). */
export interface ApprovalEvent extends Omit<ApprovalRequest, "commands"> {
  /** For a bash command: the `command` pattern "always for commands like this" would allow (`git log *`). */
  readonly like?: string;
}

/** What the page is told about a call the sandbox refused: `{ id, tool, arguments, owner, grant, save? }`. */
export interface GrantEvent extends Omit<ApprovalRequest, "commands" | "refused"> {
  /** The plugin refused. */
  readonly owner: string;
  /** The missing grant as its config entry would say it (`"permissions": ["network"]`). */
  readonly grant: string;
  /** The config file a "saved" grant is written to; absent: once or for the session only. */
  readonly save?: string;
}

/** The calls waiting for an answer, shared by every turn of one server. */
export class PendingApprovals {
  readonly #waiting = new Map<string, (answer: ApprovalAnswer) => void>();
  readonly #saveTo: string | undefined;

  /** `saveTo`: the config file grants given on the page may be saved to (none: the app's own, shipped config). */
  constructor(saveTo?: string) {
    this.#saveTo = saveTo;
  }

  /** How many calls wait now. */
  get size(): number {
    return this.#waiting.size;
  }

  /**
   * An approver for one turn: each request is sent to `show` (a refused call's to `offer`),
   * then waits for its answer. Without `offer`, a refused call stays refused.
   */
  approver(show: (event: ApprovalEvent) => void, offer?: (event: GrantEvent) => void): Approver {
    return (request, signal) =>
      new Promise<ApprovalAnswer>((resolve, reject) => {
        if (signal.aborted) return reject(signal.reason);
        const id = this.#freeId(request.id);
        const settle = () => {
          this.#waiting.delete(id);
          signal.removeEventListener("abort", cancel);
        };
        const cancel = () => {
          settle();
          reject(signal.reason);
        };
        signal.addEventListener("abort", cancel, { once: true });
        this.#waiting.set(id, (answer) => {
          settle();
          resolve(answer);
        });
        const { commands, change, tainted, refused } = request;
        if (refused === undefined) show({ id, tool: request.tool, arguments: request.arguments, ...(commands ? { like: commands.pattern } : {}), ...(change ? { change } : {}), ...(tainted ? { tainted } : {}) });
        else if (offer === undefined) this.answer(id, { decision: "deny" });
        else {
          const save = this.#saveTo === undefined ? {} : { save: this.#saveTo };
          offer({ id, tool: request.tool, arguments: request.arguments, owner: refused.owner, grant: describeGrant(refused.grant), ...save });
        }
      });
  }

  /** Answers call `id` (an `always` answer the runtime remembers); false when no call waits under that id. */
  answer(id: string, answer: ApprovalAnswer): boolean {
    const waiting = this.#waiting.get(id);
    waiting?.(answer);
    return waiting !== undefined;
  }

  /** The call id, unless another turn's call already waits under it (models may reuse ids). */
  #freeId(callId: string): string {
    if (!this.#waiting.has(callId)) return callId;
    let n = 2;
    while (this.#waiting.has(`${callId}-${n}`)) n++;
    return `${callId}-${n}`;
  }
}

/** `POST /api/approvals/:id`, to mount under `/api`. */
export function approvalRoutes(pending: PendingApprovals): Hono {
  const routes = new Hono();
  routes.post(
    "/approvals/:id",
    jsonBody("the answer", 16 * 1024),
    async (c) => {
      const parsed = v.safeParse(ApprovalAnswerSchema, await c.req.json().catch(() => undefined));
      if (!parsed.success) {
        return c.json(
          { error: 'Invalid approval answer: expected {"decision": "allow" or "deny", "reason"?: a string of at most 2000 characters, "always"?: "commands", "grant"?: "once", "session" or "saved"}' },
          400,
        );
      }
      const { decision, reason, always, grant } = parsed.output;
      const id = c.req.param("id");
      const answer = { decision, ...(reason === undefined ? {} : { reason }), ...(always === undefined ? {} : { always }), ...(grant === undefined ? {} : { grant }) };
      if (!pending.answer(id, answer)) {
        return c.json({ error: `No call waits for approval under the id ${id}` }, 404);
      }
      return c.json({ ok: true });
    },
  );
  return routes;
}
