/**
 * Hooks: the user's own programs, run unconfined as the user around a call that the policy
 * did not deny, each in its program's folder with an environment cleaned of what runtimes
 * read as code (hook-environment.ts). Each gets the call as JSON on stdin and answers JSON on stdout; a before hook
 * may deny the call, ask the person about it or rewrite its arguments, an after hook may
 * rewrite its result. A hook fails closed: one that cannot start, exits non-zero, outlives its
 * timeout (its whole process group is killed) or answers anything but its JSON denies the call.
 */
import { hookPlace } from "./hook-environment.ts";
import { runProgram } from "@plugboard/core/process";
import { wildcardMatch } from "./policy.ts";

/** One hook, as the app's config resolved it. */
export interface Hook {
  /** Wildcard over tool names (as a policy rule's `tool`); absent: every tool. */
  readonly tool?: string;
  /** The program and its arguments, paths resolved (relative to the config's folder). */
  readonly command: readonly string[];
  /**
   * The file that is the hook's code: the script an interpreter runs (`bun ./hooks/check.ts`),
   * else the program itself; absent when the command names none.
   */
  readonly program?: string;
  /** How messages and the audit log name it: the command as the config writes it. */
  readonly label: string;
  /** @default 10 000 */
  readonly timeoutMs: number;
  /** The folder it runs in: its program's (the config's when there is no program). */
  readonly cwd: string;
}

/** The hooks of an app, each list in config order. */
export interface Hooks {
  readonly before: readonly Hook[];
  readonly after: readonly Hook[];
}

/** No hooks: the runtime's default. */
export const NO_HOOKS: Hooks = Object.freeze({ before: Object.freeze([]), after: Object.freeze([]) });

/** How long a hook may run when its entry sets no `timeoutMs`. */
export const DEFAULT_HOOK_TIMEOUT_MS = 10_000;

/** What one hook did to a call, as the audit line records it. */
export interface HookEffect {
  /** `before ./check.sh`, `after ./redact.sh`. */
  readonly hook: string;
  /**
   * A before hook's decision; `result` / `kept` for an after hook that rewrote the result or
   * left it; `failed` for a hook that failed (and so denied the call).
   */
  readonly effect: "allow" | "ask" | "deny" | "result" | "kept" | "failed";
  /** The hook's reason for its decision, or what failed. */
  readonly reason?: string;
  /** The arguments a before hook rewrote the call's to. */
  readonly args?: Readonly<Record<string, unknown>>;
}

/** What a hook is told about a call, on its stdin. */
export interface HookCall {
  readonly tool: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly session: string;
  readonly callId: string;
  /** The workspace's absolute path. */
  readonly workspace: string;
}

/** A before hook's answer, once read. */
export type BeforeAnswer =
  | { readonly ok: true; readonly decision: "allow" | "ask" | "deny"; readonly reason?: string; readonly args?: Record<string, unknown> }
  | { readonly ok: false; readonly problem: string };

/** An after hook's answer, once read. */
export type AfterAnswer = { readonly ok: true; readonly result?: string } | { readonly ok: false; readonly problem: string };

/** The hooks of `list` that apply to `tool`, in order. */
export function hooksFor(list: readonly Hook[], tool: string): Hook[] {
  return list.filter((hook) => hook.tool === undefined || wildcardMatch(hook.tool, tool));
}

/** Runs a before hook on `call` and reads its answer; rejects with the signal's reason when the call is cancelled meanwhile. */
export async function askBeforeHook(hook: Hook, call: HookCall, signal: AbortSignal): Promise<BeforeAnswer> {
  const answer = await runHook(hook, { hook: "before", ...call }, signal);
  return answer.ok ? beforeAnswer(answer.value) : answer;
}

/** Runs an after hook on `call` and its result; rejects with the signal's reason when the call is cancelled meanwhile. */
export async function askAfterHook(hook: Hook, call: HookCall & { readonly result: string; readonly isError: boolean }, signal: AbortSignal): Promise<AfterAnswer> {
  const answer = await runHook(hook, { hook: "after", ...call }, signal);
  return answer.ok ? afterAnswer(answer.value) : answer;
}

type RawAnswer = { readonly ok: true; readonly value: Record<string, unknown> } | { readonly ok: false; readonly problem: string };

async function runHook(hook: Hook, input: HookCall & { readonly hook: "before" | "after" }, signal: AbortSignal): Promise<RawAnswer> {
  let outcome: Awaited<ReturnType<typeof runProgram>>;
  const place = await hookPlace(hook.cwd, input.workspace, process.env);
  try {
    outcome = await runProgram(hook.command, { cwd: place.cwd, env: place.env, input: JSON.stringify(input), timeoutMs: hook.timeoutMs, signal });
  } catch (error) {
    return { ok: false, problem: `it cannot start (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    await place.release();
  }
  if (outcome.ending === "cancelled") throw signal.reason;
  if (outcome.ending === "timed_out") return { ok: false, problem: `it gave no answer within ${hook.timeoutMs} ms and was killed` };
  if (outcome.exitCode !== 0) {
    const how = outcome.exitCode === null ? `it was ended by ${outcome.signalCode}` : `it exited with code ${outcome.exitCode}`;
    const said = lastLine(outcome.stderr);
    return { ok: false, problem: said === undefined ? how : `${how}: ${said}` };
  }
  if (outcome.overflowed) return { ok: false, problem: "its answer is too long (over 10 MiB)" };
  let value: unknown;
  try {
    value = JSON.parse(outcome.stdout);
  } catch {
    return { ok: false, problem: `its answer is not JSON: ${quote(outcome.stdout)}` };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return { ok: false, problem: `its answer is not a JSON object: ${quote(outcome.stdout)}` };
  return { ok: true, value: value as Record<string, unknown> };
}

const BEFORE_SHAPE = '{"decision": "allow" | "deny" | "ask", "reason"?: string, "args"?: object}';

function beforeAnswer(value: Record<string, unknown>): BeforeAnswer {
  const { decision, reason, args, ...rest } = value;
  const wrong = (problem: string): BeforeAnswer => ({ ok: false, problem: `its answer is not ${BEFORE_SHAPE}: ${problem}` });
  if (decision !== "allow" && decision !== "deny" && decision !== "ask") return wrong(`"decision" is ${JSON.stringify(decision) ?? "missing"}`);
  if (reason !== undefined && typeof reason !== "string") return wrong('"reason" is not a string');
  if (args !== undefined && (typeof args !== "object" || args === null || Array.isArray(args))) return wrong('"args" is not an object');
  const extra = Object.keys(rest);
  if (extra.length > 0) return wrong(`unexpected ${extra.map((key) => JSON.stringify(key)).join(", ")}`);
  return { ok: true, decision, ...(reason === undefined ? {} : { reason }), ...(args === undefined ? {} : { args: args as Record<string, unknown> }) };
}

function afterAnswer(value: Record<string, unknown>): AfterAnswer {
  const { result, ...rest } = value;
  const wrong = (problem: string): AfterAnswer => ({ ok: false, problem: `its answer is not {"result"?: string}: ${problem}` });
  if (result !== undefined && typeof result !== "string") return wrong('"result" is not a string');
  const extra = Object.keys(rest);
  if (extra.length > 0) return wrong(`unexpected ${extra.map((key) => JSON.stringify(key)).join(", ")}`);
  return result === undefined ? { ok: true } : { ok: true, result };
}

/** The last line a failing hook wrote on stderr, short: usually why it failed. */
function lastLine(text: string): string | undefined {
  const line = text.trimEnd().split("\n").at(-1)?.trim();
  return line ? line.slice(0, 200) : undefined;
}

function quote(text: string): string {
  const shown = JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
  return text.length === 0 ? "(nothing)" : shown;
}
