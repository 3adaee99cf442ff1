/**
 * The gate's last step, for a call the policy or a hook wants a person to see: first the
 * rules the session remembered (what its "always" answers added, judged as the policy judges
 * rules, a bash line command by command), then the app's approver. Questions through one
 * approver are asked one at a time, each after the answers before it, so an "always" answer
 * spares the calls waiting behind it. A bash line's question carries the rule "always for
 * commands like this" would add (`derived-rule.ts`), a file tool's the change it makes
 * (`file-change.ts`); every rule reads the call's line once. A call of a tainted session
 * that can send data out (`taint.ts`) skips the remembered rules.
 */
import type { Workspace } from "@plugboard/core";
import { lazily } from "@plugboard/core/internal";
import { type ApprovalAnswer, type ApprovalRequest, type Approver, whoAnswers } from "./approval.ts";
import { deriveCommandRule } from "./derived-rule.ts";
import { decide, type PolicyRule, SHELL_TOOLS } from "./policy.ts";
import type { ShellLines } from "./shell-lines.ts";

/** One call to ask about. */
export interface AskInput {
  readonly request: ApprovalRequest;
  readonly session: string;
  /** Absent: no one to ask. */
  readonly approve: Approver | undefined;
  readonly lines: ShellLines;
  readonly signal: AbortSignal;
}

/** The answer, or undefined when no rule allows the call and no one can be asked. */
export type Asked = ApprovalAnswer | undefined;

const ALLOWED: ApprovalAnswer = Object.freeze({ decision: "allow" });

/** A runtime's asking: its sessions' remembered rules and the questions waiting for each approver. */
export class Asking {
  readonly #workspace: Workspace;
  readonly #remembered = new Map<string, PolicyRule[]>();
  readonly #waiting = new WeakMap<Approver, Promise<unknown>>();

  constructor(workspace: Workspace) {
    this.#workspace = workspace;
  }

  /** The rules `session`'s "always" answers added, in order. */
  remembered(session: string): readonly PolicyRule[] {
    return [...(this.#remembered.get(session) ?? [])];
  }

  /** Asks about one call. Rejects when the approver does (a cancelled turn), or when the call's signal aborted while it waited its turn. */
  ask({ request, session, approve, lines, signal }: AskInput): Promise<Asked> {
    // A tainted session's call needs a person: no remembered rule and no approver that asks no one answers it.
    const tainted = request.tainted !== undefined;
    if (tainted && (approve === undefined || whoAnswers(approve, request) === "no one")) return Promise.resolve(undefined);
    if (approve === undefined) return this.#allows(request, session, lines).then((allowed) => (allowed ? ALLOWED : undefined));
    return this.#inTurn(approve, async () => {
      if (!tainted && (await this.#allows(request, session, lines))) return ALLOWED;
      // A call whose turn was cancelled while it waited for an earlier question is not asked about.
      if (signal.aborted) throw signal.reason;
      // A question no person reads is offered nothing and shown nothing: no line or file is read for it.
      const person = whoAnswers(approve, request) === "person";
      const commands = person ? await this.#offer(request, lines) : undefined;
      // The preview of a file's change (and the diff library it uses) loads at the first question a person is asked.
      const change = person ? await (await lazily("the change preview", () => import("./file-change.ts"))).fileChange(request.tool, request.arguments, this.#workspace) : undefined;
      const given = await approve({ ...request, ...(commands ? { commands } : {}), ...(change ? { change } : {}) }, signal);
      // Only yes or no is asked under the taint: an "always" then is no answer to remember.
      if (!tainted) this.#remember(session, request.tool, given, commands?.pattern);
      return given;
    });
  }

  /**
   * Asks `approve` about a call the sandbox refused (`request.refused`), in turn with its other
   * questions; no remembered rule answers it, and nothing is offered besides the grant.
   */
  offer(request: ApprovalRequest, approve: Approver, signal: AbortSignal): Promise<ApprovalAnswer> {
    return this.#inTurn(approve, () => {
      if (signal.aborted) throw signal.reason;
      return approve(request, signal);
    });
  }

  /** Runs `question` once the questions to `approve` before it are answered (or failed). */
  #inTurn<T>(approve: Approver, question: () => Promise<T>): Promise<T> {
    const answer = (this.#waiting.get(approve) ?? Promise.resolve()).then(question);
    this.#waiting.set(approve, answer.catch(() => {}));
    return answer;
  }

  /** Whether a rule the session remembered allows the call. */
  async #allows(request: ApprovalRequest, session: string, lines: ShellLines): Promise<boolean> {
    const rules = this.#remembered.get(session);
    if (rules === undefined) return false;
    const verdict = await decide({ default: "ask", rules }, request.tool, request.arguments, this.#workspace, lines);
    return verdict.action === "allow";
  }

  /** "Always for commands like this", for a bash line whose first command can be named; never under the taint, which no rule answers. */
  async #offer(request: ApprovalRequest, lines: ShellLines) {
    if (request.tainted !== undefined) return undefined;
    const line = request.arguments.command;
    return SHELL_TOOLS.includes(request.tool) && typeof line === "string" ? deriveCommandRule(line, lines) : undefined;
  }

  /** An "always" answer as a rule: this tool, or commands like the one offered (an answer to no offer adds nothing). */
  #remember(session: string, tool: string, answer: ApprovalAnswer, pattern: string | undefined): void {
    if (answer.decision !== "allow") return;
    const rule: PolicyRule | undefined =
      answer.always === "tool"
        ? { tool, action: "allow" }
        : answer.always === "commands" && pattern !== undefined
          ? { tool, args: { command: pattern }, action: "allow" }
          : undefined;
    if (rule === undefined) return;
    const rules = this.#remembered.get(session) ?? [];
    rules.push(rule);
    this.#remembered.set(session, rules);
  }
}
