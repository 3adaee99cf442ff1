/** Running one tool handler, the same way wherever the plugin runs (the app's process or its host). */
import { type AnyToolDefinition, type ToolContext, type ToolResult, errorResult, ToolError } from "@plugboard/core";
import { isCancellation, toolErrors } from "@plugboard/core/internal";

/**
 * How long a handler has to answer once its call is cancelled; past it, the call is answered
 * "cancelled" and whatever the handler returns later is dropped, so a handler that ignores
 * its signal cannot hold a cancelled turn.
 */
export const CANCEL_GRACE_MS = 2000;

/**
 * Runs a tool's handler: its result, or the `Error:` result of a `ToolError` it threw, or
 * "cancelled" when it stopped by rethrowing its call's abort (as fetch or a spawned process
 * does) or did not answer within `CANCEL_GRACE_MS` of it. Anything else it throws is
 * rethrown as it is: a programming error, which the runtime wraps in a `PluginError` (a
 * plugin host sends it to the app, which does the same).
 */
export async function runHandler(tool: AnyToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  const running = answer(tool, args, ctx);
  const { signal } = ctx;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const givenUp = new Promise<ToolResult>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve(toolErrors.cancelled()), CANCEL_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  // A handler that fails after its call was given up has no one left to tell.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, givenUp]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  }
}

async function answer(tool: AnyToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  try {
    return await tool.handler(args, ctx);
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error.message);
    if (isCancellation(error, ctx.signal)) return toolErrors.cancelled();
    throw error;
  }
}
