/**
 * Web approvals: when the policy says `ask`, the call waits here while the page shows an
 * approval card (the `approval` event of the turn's stream) until someone answers
 * `POST /api/approvals/ID`, or the turn ends (its client went away, the server stops), which
 * refuses the call. A bash card offers "always for commands like this" (`like`, a rule from
 * the command's leading words); answered with `"always": "commands"`, that rule allows such
 * calls without a card until the server stops, judged as the policy judges.
 */
import type { Workspace } from "@plugboard/core";
import { deriveCommandRule, type ApprovalAnswer, type ApprovalRequest, type Approver, decide, type PolicyRule } from "@plugboard/runtime";
import { Hono } from "hono";
import * as v from "valibot";
import { jsonBody } from "./json-body.ts";

/** The body of `POST /api/approvals/ID`. */
export const ApprovalAnswerSchema = v.strictObject({
  decision: v.picklist(["allow", "deny"]),
  reason: v.optional(v.pipe(v.string(), v.maxLength(2000))),
  always: v.optional(v.literal("commands")),
});

/** What the page is told about a call waiting for it: `{ id, tool, arguments, like? }`. */
export interface ApprovalEvent extends ApprovalRequest {
  /** For a bash command: the `command` pattern "always for commands like this" would allow (`git log *`). */
  readonly like?: string;
}

interface Waiting {
  readonly resolve: (answer: ApprovalAnswer) => void;
  readonly rule?: PolicyRule;
}

/** The calls waiting for an answer, shared by every turn of one server. */
export class PendingApprovals {
  readonly #waiting = new Map<string, Waiting>();
  /** The rules "always for commands like this" answers added, judged before a card is shown. */
  readonly #rules: PolicyRule[] = [];
  readonly #workspace: Workspace;

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  /** How many calls wait now. */
  get size(): number {
    return this.#waiting.size;
  }

  /** An approver for one turn: each request is sent to `show`, then waits for its answer. */
  approver(show: (event: ApprovalEvent) => void): Approver {
    return async (request, signal) => {
      const remembered = await decide({ default: "ask", rules: this.#rules }, request.tool, request.arguments, this.#workspace);
      if (remembered.action === "allow") return { decision: "allow" };
      const command = request.arguments.command;
      const derived = request.tool === "bash" && typeof command === "string" ? await deriveCommandRule(command) : undefined;
      const rule: PolicyRule | undefined = derived ? { tool: request.tool, args: { command: derived.pattern }, action: "allow" } : undefined;
      return new Promise<ApprovalAnswer>((resolve, reject) => {
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
        this.#waiting.set(id, {
          resolve: (answer) => {
            settle();
            resolve(answer);
          },
          ...(rule ? { rule } : {}),
        });
        show({ id, tool: request.tool, arguments: request.arguments, ...(derived ? { like: derived.pattern } : {}) });
      });
    };
  }

  /** Answers call `id`; false when no call waits under that id. */
  answer(id: string, answer: ApprovalAnswer, always?: "commands"): boolean {
    const waiting = this.#waiting.get(id);
    if (waiting?.rule && always === "commands" && answer.decision === "allow") this.#rules.push(waiting.rule);
    waiting?.resolve(answer);
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
        return c.json({ error: 'Invalid approval answer: expected {"decision": "allow" or "deny", "reason"?: a string of at most 2000 characters, "always"?: "commands"}' }, 400);
      }
      const { decision, reason, always } = parsed.output;
      const id = c.req.param("id");
      if (!pending.answer(id, { decision, ...(reason === undefined ? {} : { reason }) }, always)) {
        return c.json({ error: `No call waits for approval under the id ${id}` }, 404);
      }
      return c.json({ ok: true });
    },
  );
  return routes;
}
