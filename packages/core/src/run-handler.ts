/**
 * Running one tool handler, the same way wherever the handler runs: in the app's process (an
 * in-process source), in a confined plugin's host, or for a bare definition the registry holds.
 * A source whose handler runs elsewhere (a host, an MCP server) gives up on a cancelled call
 * the same way (`answeredOrCancelled`).
 */
import type { AnyToolDefinition, ToolContext, ToolResult } from "./contract.ts";
import { errorResult, isCancellation, ToolError, toolErrors } from "./errors.ts";

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
export function runHandler(tool: AnyToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  return answeredOrCancelled(answer(tool, args, ctx), ctx.signal);
}

/**
 * What `running` answers, or "cancelled" when it has not answered within `CANCEL_GRACE_MS`
 * of `signal`'s abort (what it answers later is dropped; what it throws later, ignored).
 */
export async function answeredOrCancelled(running: Promise<ToolResult>, signal: AbortSignal): Promise<ToolResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const givenUp = new Promise<ToolResult>((resolve) => {
    onAbort = () => {
      timer = setTimeout(() => resolve(toolErrors.cancelled()), CANCEL_GRACE_MS);
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  // A call that fails after it was given up has no one left to tell.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, givenUp]);
  } finally {
    clearTimeout(timer);
    if (onAbort !== undefined) signal.removeEventListener("abort", onAbort);
  }
}

async function answer(tool: AnyToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
  let result: unknown;
  try {
    result = await tool.handler(args, ctx);
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error.message);
    if (isCancellation(error, ctx.signal)) return toolErrors.cancelled();
    throw error;
  }
  // A plugin in JavaScript, or typed loosely, can return anything: its bug, said as such wherever it runs.
  const checked = checkedResult(result);
  if (typeof checked === "string") throw new TypeError(`it returned ${checked}, not a result { content: string, isError: boolean }: return textResult(TEXT) or errorResult(MESSAGE)`);
  return checked;
}

/**
 * What a handler returned, as a result made anew from its fields, each read once (a getter
 * cannot show the check one value and the app another); or, when it is no result, what it is
 * for the message: `a string`, `undefined`, `an object whose content is not a string`.
 */
function checkedResult(value: unknown): ToolResult | string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  if (typeof value !== "object") return `${/^[aeiou]/.test(typeof value) ? "an" : "a"} ${typeof value}`;
  const { content, isError, structuredContent } = value as Partial<Record<keyof ToolResult, unknown>>;
  if (typeof content !== "string") return "an object whose content is not a string";
  if (typeof isError !== "boolean") return "an object whose isError is not a boolean";
  if (structuredContent === undefined) return { content, isError };
  if (typeof structuredContent !== "object" || structuredContent === null) return "an object whose structuredContent is not an object";
  return { content, isError, structuredContent: structuredContent as Readonly<Record<string, unknown>> };
}
