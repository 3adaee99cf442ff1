/**
 * Running the tool calls of one model response. Calls whose tools say they may overlap run
 * at the same time (read-only tools together; writes to different things together); every
 * other call waits for the earlier calls it could interfere with, so two writes of one file
 * apply in the order of the calls. Results come back in the order of the calls, whatever
 * order they finish in, and each `tool_result` event follows its `tool_call`. Each call is
 * prepared once (`runtime.prepare`: tool looked up, arguments read and validated): what it
 * writes is read from it here, and the runtime runs that same prepared call.
 */
import type { AgentEvent } from "./agent-loop.ts";
import type { Approver, CallResult, PreparedCall, ToolRuntime } from "@plugboard/runtime";
import type { ToolResult, Workspace } from "@plugboard/core";
import { isCancellation, PluginError, toolErrors } from "@plugboard/core/internal";
import type { FunctionCall } from "./model-turn.ts";

/** What a call touches, for deciding what may overlap. */
type Access = { readonly kind: "serial" } | { readonly kind: "read" } | { readonly kind: "write"; readonly key: string };

/** What running the calls needs from the loop. */
export interface ToolCallsOptions {
  readonly runtime: ToolRuntime;
  readonly signal: AbortSignal | undefined;
  readonly approve: Approver | undefined;
  /** The conversation whose taint the calls are judged under (the runtime's `ExecuteOptions.conversation`). */
  readonly conversation?: string | undefined;
  readonly emit: (event: AgentEvent) => void;
  /** Give the tools `ToolContext.progress` and emit what they show as `tool_progress`. @default false */
  readonly progress?: boolean;
  /**
   * The response stopped at the model's output limit: a call whose arguments are not JSON
   * was cut off there, and is answered so (without running) rather than as a JSON error.
   */
  readonly cutOff?: boolean;
  /** Answers a call the loop handles itself (the tool search), or returns undefined for the runtime to run it. */
  readonly answer?: (call: FunctionCall, prepared: PreparedCall) => Promise<ToolResult> | undefined;
}

/** A call and its result. */
export interface AnsweredCall {
  readonly call: FunctionCall;
  readonly result: CallResult;
}

interface ScheduledCall {
  readonly call: FunctionCall;
  readonly access: Access;
  readonly done: Promise<CallResult>;
}

/**
 * Runs `calls` and returns their results in call order. A call that starts after the signal
 * aborted is answered as cancelled without running. A programming error of one call rejects,
 * once every call already running has settled.
 */
export async function runToolCalls(calls: readonly FunctionCall[], options: ToolCallsOptions): Promise<AnsweredCall[]> {
  // One approver for every call: the runtime asks through it one question at a time, whatever runs meanwhile.
  const { runtime, signal, emit, approve, conversation } = options;
  const scheduled: ScheduledCall[] = [];
  for (const call of calls) {
    const prepared = runtime.prepare(call.name, call.arguments);
    const access = await accessOf(prepared, runtime.workspace);
    const before = scheduled.filter((earlier) => conflicts(earlier.access, access)).map((earlier) => earlier.done);
    const done = Promise.all(before).then(() => {
      emit({ type: "tool_call", id: call.id, name: call.name, arguments: call.arguments });
      if (signal?.aborted) return toolErrors.cancelled();
      if (options.cutOff && prepared.reading.notJson !== undefined) return toolErrors.cutOff();
      const onProgress = options.progress === true ? (text: string) => emit({ type: "tool_progress", id: call.id, text }) : undefined;
      return options.answer?.(call, prepared) ?? execute(runtime, call.id, prepared, { signal, approve, conversation, onProgress });
    });
    // Awaited below in call order; marked handled now so a later call's failure is not unhandled meanwhile.
    done.catch(() => {});
    scheduled.push({ call, access, done });
  }

  const answered: AnsweredCall[] = [];
  for (const { call, done } of scheduled) {
    let result: CallResult;
    try {
      result = await done;
    } catch (error) {
      await Promise.allSettled(scheduled.map((each) => each.done));
      throw error;
    }
    const redactions = result.redactions === undefined ? {} : { redactions: result.redactions };
    emit({ type: "tool_result", id: call.id, name: call.name, content: result.content, isError: result.isError, ...redactions });
    answered.push({ call, result });
  }
  return answered;
}

async function execute(
  runtime: ToolRuntime,
  callId: string,
  prepared: PreparedCall,
  { signal, approve, conversation, onProgress }: Pick<ToolCallsOptions, "signal" | "approve" | "conversation"> & { readonly onProgress: ((text: string) => void) | undefined },
) {
  try {
    return await runtime.execute(prepared, { callId, ...(onProgress ? { onProgress } : {}), ...(signal ? { signal } : {}), ...(approve ? { approve } : {}), ...(conversation ? { conversation } : {}) });
  } catch (error) {
    // An approval cut short by the abort (a handler's abort is the runtime's business): its
    // call id still gets a result and the turn ends as aborted.
    if (signal && isCancellation(error, signal)) return toolErrors.cancelled();
    throw error;
  }
}

/**
 * The access a call declares through its tool. A call that cannot run (unknown tool, bad
 * arguments) only gets an error result, so it overlaps like a read.
 */
async function accessOf(prepared: PreparedCall, workspace: Workspace): Promise<Access> {
  const { registered } = prepared;
  if (!registered) return { kind: "read" };
  const { concurrency = "serial" } = registered.tool;
  if (concurrency === "serial") return { kind: "serial" };
  if (concurrency === "read-only") return { kind: "read" };
  if (!prepared.ok) return { kind: "read" };
  // A copy: what the tool says it writes cannot change the arguments its handler gets.
  const args = { ...prepared.arguments };
  let key: string;
  try {
    key = registered.writes === undefined ? concurrency.writes(args, workspace) : await registered.writes(args);
  } catch (error) {
    throw new PluginError({ tool: registered.tool.name, plugin: registered.owner, phase: "concurrency", cause: error });
  }
  // One file written through other names (a symlink to it, a symlinked folder above it) is one
  // key: its real path. A key the workspace refuses is the call's own business: kept as it is.
  return { kind: "write", key: await workspace.resolve(key).catch(() => key) };
}

/** Whether two calls must not overlap (the later then waits for the earlier). */
function conflicts(earlier: Access, later: Access): boolean {
  if (earlier.kind === "serial" || later.kind === "serial") return true;
  if (earlier.kind === "read" && later.kind === "read") return false;
  if (earlier.kind === "write" && later.kind === "write") return earlier.key === later.key;
  return true;
}
