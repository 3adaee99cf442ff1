/**
 * The one decision point between a validated call and its handler: the policy's verdict,
 * and for `ask` the app's approver. A refusal is the result the model sees.
 */
import type { Approver, ApprovalRequest } from "./approval.ts";
import type { AuditDecision } from "./audit.ts";
import type { ToolResult } from "./contract.ts";
import { toolErrors } from "./errors.ts";
import { decide, describeRule, type Policy } from "./policy.ts";
import type { Workspace } from "./workspace.ts";

/** How a call was decided; `refusal` is set when it must not run. */
export interface GateOutcome {
  readonly decision: AuditDecision;
  /** The deciding rule as the config writes it; absent when the default decided. */
  readonly rule?: string;
  readonly refusal?: ToolResult;
}

/** Inputs of `passGate`. */
export interface GateInput {
  readonly policy: Policy;
  readonly workspace: Workspace;
  readonly request: ApprovalRequest;
  /** Absent: no one to ask, so `ask` is refused. */
  readonly approve: Approver | undefined;
  readonly signal: AbortSignal;
}

/** Decides one call; rejects only when the approver does (a cancelled turn). */
export async function passGate({ policy, workspace, request, approve, signal }: GateInput): Promise<GateOutcome> {
  const verdict = await decide(policy, request.tool, request.arguments, workspace);
  const rule = verdict.rule ? { rule: describeRule(verdict.rule) } : {};
  if (verdict.action === "allow") return { decision: "allow", ...rule };
  if (verdict.action === "deny") return { decision: "deny", ...rule, refusal: toolErrors.deniedByPolicy(rule.rule ?? "default") };
  if (!approve) return { decision: "ask:no", ...rule, refusal: toolErrors.noOneToAsk() };
  const answer = await approve(request, signal);
  if (answer.decision === "allow") return { decision: "ask:yes", ...rule };
  return { decision: "ask:no", ...rule, refusal: toolErrors.deniedByUser(answer.reason?.trim()) };
}
