/**
 * The one decision point between a validated call and its handler: the policy's verdict,
 * the before hooks, and for `ask` the session's remembered rules, then the person
 * (`asking.ts`). A refusal is the result the model sees. The call's bash line is read once,
 * whoever judges it; a line a hook rewrote is read anew.
 */
import type { ApprovalRequest } from "./approval.ts";
import type { Asked } from "./asking.ts";
import type { AuditDecision } from "./audit.ts";
import type { ToolResult, Workspace } from "@plugboard/core";
import { type BeforeHooksOutcome, runBeforeHooks } from "./before-hooks.ts";
import { toolErrors } from "@plugboard/core/internal";
import type { Hook, HookEffect } from "./hooks.ts";
import { decide, describeRule, type Policy } from "./policy.ts";
import type { ShellLines } from "./shell-lines.ts";
import type { Taint } from "./taint.ts";

/** How a call was decided; `refusal` is set when it must not run. */
export interface GateOutcome {
  readonly decision: AuditDecision;
  /** The deciding rule as the config writes it; absent when the default decided. */
  readonly rule?: string;
  readonly refusal?: ToolResult;
  /** The session's taint, when it decided that a person must answer (or that the call is refused). */
  readonly tainted?: Taint;
  /** The arguments the handler gets: the call's, or as before hooks rewrote them. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /** What each before hook that ran did, in order. */
  readonly hooks: readonly HookEffect[];
}

/** Inputs of `passGate`. */
export interface GateInput {
  readonly policy: Policy;
  readonly workspace: Workspace;
  readonly request: ApprovalRequest;
  /** The call's bash lines, each read once (`shell-lines.ts`). */
  readonly lines: ShellLines;
  /** For an `ask`: a remembered rule's or the person's answer; undefined when no one can be asked. */
  readonly ask: (request: ApprovalRequest) => Promise<Asked>;
  readonly signal: AbortSignal;
  /**
   * The session's taint, when the call can send data out and untrusted content entered the
   * conversation: what the policy allows is asked about (`ask`) or refused (`deny`). @default none
   */
  readonly taint?: { readonly tainted: Taint; readonly mode: "ask" | "deny" };
  /** The before hooks for the call's tool, in order, and what they need. @default none */
  readonly hooks?: {
    readonly before: readonly Hook[];
    readonly session: string;
    /** The tool's check of arguments a hook rewrote. */
    readonly validate: (args: unknown) => readonly string[];
  };
}

/**
 * Decides one call: the policy (a deny is final: no hook runs), then the before hooks (which
 * may deny, ask, or rewrite the arguments, decided by the policy again), then the person for
 * an `ask`. Rejects only when the approver or a hook does (a cancelled turn).
 */
export async function passGate({ policy, workspace, request: call, lines, ask, signal, taint, hooks }: GateInput): Promise<GateOutcome> {
  const first = await decide(policy, call.tool, call.arguments, workspace, lines);
  const hooked: BeforeHooksOutcome =
    first.action === "deny" || hooks === undefined || hooks.before.length === 0
      ? { request: call, verdict: first, ask: false, effects: [] }
      : await runBeforeHooks({
          ...hooks,
          hooks: hooks.before,
          request: call,
          verdict: first,
          workspace: workspace.root,
          signal,
          recheck: (args) => decide(policy, call.tool, args, workspace, lines),
        });
  const { request, verdict } = hooked;
  const rule = verdict.rule ? { rule: describeRule(verdict.rule) } : {};
  const base = { ...rule, arguments: request.arguments, hooks: hooked.effects };
  if (hooked.refusal) return { decision: "deny", ...base, refusal: hooked.refusal };
  if (verdict.action === "deny") return { decision: "deny", ...base, refusal: toolErrors.deniedByPolicy(rule.rule ?? "default") };
  if (taint !== undefined) return taintedGate(request, base, taint, ask);
  if (verdict.action === "allow" && !hooked.ask) return { decision: "allow", ...base };
  const answer = await ask(request);
  if (answer === undefined) return { decision: "ask:no", ...base, refusal: toolErrors.noOneToAsk() };
  if (answer.decision === "allow") return { decision: "ask:yes", ...base };
  return { decision: "ask:no", ...base, refusal: toolErrors.deniedByUser(answer.reason?.trim()) };
}

/** A call of a tainted session that can send data out, which the policy and hooks did not refuse: refused, or a person's to answer. */
async function taintedGate(
  request: ApprovalRequest,
  base: Pick<GateOutcome, "rule" | "arguments" | "hooks">,
  { tainted, mode }: NonNullable<GateInput["taint"]>,
  ask: GateInput["ask"],
): Promise<GateOutcome> {
  const judged = { ...base, tainted };
  if (mode === "deny") return { decision: "deny", ...judged, refusal: toolErrors.taintedDenied(request.tool, tainted.by) };
  const answer = await ask({ ...request, tainted });
  if (answer === undefined) return { decision: "ask:no", ...judged, refusal: toolErrors.taintedNoOneToAsk(request.tool, tainted.by) };
  if (answer.decision === "allow") return { decision: "ask:yes", ...judged };
  return { decision: "ask:no", ...judged, refusal: toolErrors.deniedByUser(answer.reason?.trim()) };
}
