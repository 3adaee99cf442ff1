/**
 * The gate's before-hook step: the hooks for the call's tool, in config order, each on the
 * arguments as the hooks before it left them. Rewritten arguments are validated against the
 * tool's schema and decided by the policy again; the first deny — a hook's, a failing hook's,
 * invalid rewritten arguments' or the policy's — ends the step.
 */
import type { ApprovalRequest } from "./approval.ts";
import type { ToolResult } from "@plugboard/core";
import { toolErrors } from "@plugboard/core/internal";
import { askBeforeHook, type Hook, type HookEffect } from "./hooks.ts";
import type { PolicyVerdict } from "./policy.ts";

/** Inputs of `runBeforeHooks`. */
export interface BeforeHooksInput {
  readonly hooks: readonly Hook[];
  readonly request: ApprovalRequest;
  /** The policy's verdict on the call as it came (not a deny). */
  readonly verdict: PolicyVerdict;
  readonly session: string;
  /** The workspace's absolute path, which hooks are told. */
  readonly workspace: string;
  readonly signal: AbortSignal;
  /** The tool's own check of arguments: the problems, none when valid. */
  readonly validate: (args: unknown) => readonly string[];
  /** The policy's verdict on rewritten arguments. */
  readonly recheck: (args: Readonly<Record<string, unknown>>) => Promise<PolicyVerdict>;
}

/** The call as the hooks leave it. */
export interface BeforeHooksOutcome {
  /** With the arguments the handler gets. */
  readonly request: ApprovalRequest;
  /** The policy's verdict on those arguments: a deny refuses the call. */
  readonly verdict: PolicyVerdict;
  /** Set when a hook refused the call (or failed, or gave invalid arguments). */
  readonly refusal?: ToolResult;
  /** A hook asked for the person's approval, whatever the policy says. */
  readonly ask: boolean;
  readonly effects: readonly HookEffect[];
}

/** Runs the before hooks; rejects with the signal's reason when the call is cancelled meanwhile. */
export async function runBeforeHooks(input: BeforeHooksInput): Promise<BeforeHooksOutcome> {
  let { request, verdict } = input;
  let ask = false;
  const effects: HookEffect[] = [];
  const outcome = (refusal?: ToolResult): BeforeHooksOutcome => ({ request, verdict, ask, effects, ...(refusal ? { refusal } : {}) });
  for (const hook of input.hooks) {
    const name = `before ${hook.label}`;
    const named = `before hook ${hook.label}`;
    const call = { tool: request.tool, args: request.arguments, session: input.session, callId: request.id, workspace: input.workspace };
    const answer = await askBeforeHook(hook, call, input.signal);
    if (!answer.ok) {
      effects.push({ hook: name, effect: "failed", reason: answer.problem });
      return outcome(toolErrors.hookFailed(named, answer.problem));
    }
    const { decision, reason, args } = answer;
    effects.push({ hook: name, effect: decision, ...(reason === undefined ? {} : { reason }), ...(args === undefined ? {} : { args }) });
    if (decision === "deny") return outcome(toolErrors.deniedByHook(named, reason?.trim()));
    if (decision === "ask") ask = true;
    if (args === undefined) continue;
    const problems = input.validate(args);
    if (problems.length > 0) return outcome(toolErrors.hookArguments(request.tool, named, problems));
    request = { ...request, arguments: args };
    verdict = await input.recheck(args);
    // A deny of the rewritten call is final: no later hook runs.
    if (verdict.action === "deny") return outcome();
  }
  return outcome();
}
