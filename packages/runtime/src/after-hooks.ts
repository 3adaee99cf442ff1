/**
 * The runtime's after-hook step: the hooks for the call's tool, in config order, each given
 * the result as the hooks before it left it (the whole result, before any cap on what the
 * model gets). A hook that fails withholds the result: the model reads that the call ran and
 * which hook failed.
 */
import type { ToolResult } from "@plugboard/core";
import { toolErrors } from "@plugboard/core/internal";
import { askAfterHook, type Hook, type HookCall, type HookEffect } from "./hooks.ts";

/** The result as the after hooks leave it, and what each did. */
export interface AfterHooksOutcome {
  readonly result: ToolResult;
  readonly effects: readonly HookEffect[];
}

/** Runs the after hooks on `result`; rejects with the signal's reason when the call is cancelled meanwhile. */
export async function runAfterHooks(hooks: readonly Hook[], call: HookCall, result: ToolResult, signal: AbortSignal): Promise<AfterHooksOutcome> {
  let current = result;
  const effects: HookEffect[] = [];
  for (const hook of hooks) {
    const name = `after ${hook.label}`;
    const named = `after hook ${hook.label}`;
    const answer = await askAfterHook(hook, { ...call, result: current.content, isError: current.isError }, signal);
    if (!answer.ok) {
      effects.push({ hook: name, effect: "failed", reason: answer.problem });
      return { result: toolErrors.afterHookFailed(named, answer.problem), effects };
    }
    effects.push({ hook: name, effect: answer.result === undefined ? "kept" : "result" });
    if (answer.result !== undefined) current = { content: answer.result, isError: current.isError };
  }
  return { result: current, effects };
}
