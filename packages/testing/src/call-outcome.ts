/** How one tool call ended: a result, an exception, or nothing before a deadline. */
import type { ToolResult } from "@plugboard/core";

/** The end of a call, as the checks judge it. */
export type CallOutcome =
  | { readonly kind: "result"; readonly value: ToolResult }
  | { readonly kind: "threw"; readonly error: unknown; readonly name: string; readonly message: string }
  | { readonly kind: "timeout" };

/**
 * Waits up to `ms` for `call`. A value that is not a `{ content: string, isError: boolean }`
 * counts as thrown (`TypeError`), since the runtime would pass it on to the model as is.
 */
export async function settle(call: Promise<unknown>, ms: number): Promise<CallOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<CallOutcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "timeout" }), ms);
  });
  const ended = call.then(
    (value): CallOutcome =>
      isToolResult(value)
        ? { kind: "result", value }
        : { kind: "threw", error: value, name: "TypeError", message: `returned ${JSON.stringify(value) ?? String(value)}, not { content, isError }` },
    (wrapped: unknown): CallOutcome => {
      // The runtime wraps what a handler throws in a PluginError; the checks judge what the handler threw.
      const error = wrapped instanceof Error && wrapped.name === "PluginError" ? wrapped.cause : wrapped;
      return { kind: "threw", error, name: nameOf(error), message: messageOf(error) };
    },
  );
  try {
    return await Promise.race([ended, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A short description for messages. */
export function describeOutcome(outcome: CallOutcome): string {
  if (outcome.kind === "timeout") return "no answer in time";
  if (outcome.kind === "threw") return `an exception (${outcome.name}: ${outcome.message})`;
  return JSON.stringify(outcome.value.content.slice(0, 120));
}

function isToolResult(value: unknown): value is ToolResult {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof Reflect.get(value, "content") === "string" &&
    typeof Reflect.get(value, "isError") === "boolean"
  );
}

function nameOf(error: unknown): string {
  return error instanceof Error ? error.name : typeof error;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
