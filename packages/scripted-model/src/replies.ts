/**
 * Tells the kinds of scripted replies apart and refuses malformed ones when they are
 * enqueued, so a typo in a script fails at the line that wrote it, not mid-test.
 */
import type {
  FaultReply,
  HangReply,
  RawReply,
  ReplayReply,
  ScriptedReply,
  StaticReply,
  TextReply,
  ToolCallsReply,
} from "./types.ts";

/** A static reply with its kind spelled out. */
export type ClassifiedReply =
  | { readonly kind: "text"; readonly reply: TextReply }
  | { readonly kind: "tool_calls"; readonly reply: ToolCallsReply }
  | { readonly kind: "fault"; readonly reply: FaultReply }
  | { readonly kind: "raw"; readonly reply: RawReply }
  | { readonly kind: "replay"; readonly reply: ReplayReply }
  | { readonly kind: "hang"; readonly reply: HangReply };

/** Checks a script entry; throws a `TypeError` that says what is wrong. */
export function checkReply(reply: ScriptedReply): void {
  if (typeof reply === "function") return;
  classifyReply(reply);
}

/** The kind of a static reply; throws a `TypeError` for a shape that is none of them. */
export function classifyReply(reply: StaticReply): ClassifiedReply {
  if (typeof reply !== "object" || reply === null) throw invalid(reply, "a reply must be an object or a function");
  if ("hang" in reply) {
    if (reply.hang !== true) throw invalid(reply, "hang must be true");
    return { kind: "hang", reply };
  }
  if ("replay" in reply) {
    if (typeof reply.replay !== "string" && !Array.isArray(reply.replay)) throw invalid(reply, "replay must be an array of chunks or SSE text");
    return { kind: "replay", reply };
  }
  if ("raw" in reply) {
    if (reply.status !== undefined) checkStatus(reply, reply.status);
    return { kind: "raw", reply };
  }
  if ("status" in reply) {
    checkStatus(reply, reply.status);
    return { kind: "fault", reply };
  }
  if ("toolCalls" in reply) {
    if (!Array.isArray(reply.toolCalls) || reply.toolCalls.length === 0) {
      throw invalid(reply, "toolCalls must be a non-empty array");
    }
    for (const call of reply.toolCalls) {
      if (typeof call?.name !== "string" || call.name === "") throw invalid(reply, "every tool call needs a name");
      const args: unknown = call.arguments;
      if (typeof args !== "string" && (typeof args !== "object" || args === null)) {
        throw invalid(reply, `arguments of ${call.name} must be a string or an object`);
      }
    }
    checkReasoning(reply);
    return { kind: "tool_calls", reply };
  }
  if ("content" in reply && typeof reply.content === "string") {
    checkReasoning(reply);
    return { kind: "text", reply };
  }
  throw invalid(reply, "expected { content }, { toolCalls }, { status }, { raw }, { replay } or { hang: true }");
}

function checkReasoning(reply: TextReply | ToolCallsReply): void {
  if (reply.reasoning !== undefined && typeof reply.reasoning !== "string") throw invalid(reply, "reasoning must be a string");
  const { usage } = reply;
  const counts = (value: unknown) => Number.isInteger(value) && Number(value) >= 0;
  if (usage !== undefined && usage !== false && !(counts(usage.promptTokens) && counts(usage.completionTokens))) {
    throw invalid(reply, "usage must be { promptTokens, completionTokens } (whole numbers) or false");
  }
}

function checkStatus(reply: unknown, status: unknown): void {
  if (typeof status !== "number" || !Number.isInteger(status) || status < 200 || status > 599) {
    throw invalid(reply, `status must be an HTTP status code (200-599), got ${String(status)}`);
  }
}

function invalid(reply: unknown, problem: string): TypeError {
  return new TypeError(`Invalid scripted reply ${describe(reply)}: ${problem}`);
}

function describe(reply: unknown): string {
  try {
    return JSON.stringify(reply) ?? String(reply);
  } catch {
    return String(reply);
  }
}
