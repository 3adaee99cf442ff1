/**
 * Asking a person about one tool call. The runtime calls an app's `Approver` when the
 * policy says `ask` and no rule the session remembered allows the call; the app shows the
 * tool, its arguments and the offers (a terminal prompt, a card in a page) and passes the
 * person's answer back. An "always" answer is remembered by the runtime (`asking.ts`).
 */
import type { FileChange } from "./row-mark.ts";
import type { GrantScope, MissingGrant } from "@plugboard/core/internal";
import type { DerivedCommandRule } from "./derived-rule.ts";
import type { Taint } from "./taint.ts";

/** One call waiting for a person's answer. */
export interface ApprovalRequest {
  /** The call id (the model's tool call id, `"direct"` for a person's own call). */
  readonly id: string;
  readonly tool: string;
  /** The validated arguments, as the handler would receive them. */
  readonly arguments: Readonly<Record<string, unknown>>;
  /**
   * For a bash line: "always for commands like this", the `command` pattern the answer
   * `always: "commands"` would allow (`git log *`), derived from the line's first command.
   */
  readonly commands?: DerivedCommandRule;
  /**
   * For `write_file` and `edit_file`: what the call changes, as bounded rows — the diff
   * against the file a write replaces (or the head of a new file), an edit's texts.
   */
  readonly change?: FileChange;
  /**
   * Why a person must answer though the config allows the call: untrusted content (from tool
   * `by`) entered the conversation, and this tool can send data out (`taint.ts`). No
   * remembered rule and no approver that asks no one answers such a question, so only yes or
   * no is asked: it carries no `commands`, and an `always` answer to it is not remembered.
   */
  readonly tainted?: Taint;
  /**
   * Set when the call ran and the sandbox refused it for lack of a grant its plugin may be
   * given: the question is then whether to run it again with that grant (`grant-offer.ts`).
   */
  readonly refused?: RefusedCall;
}

/** A call the sandbox refused, and exactly the grant that would allow it. */
export interface RefusedCall {
  /** The plugin refused. */
  readonly owner: string;
  readonly grant: MissingGrant;
}

/** A person's answer. */
export interface ApprovalAnswer {
  readonly decision: "allow" | "deny";
  /**
   * With `allow`: allow calls like this one for the rest of the session, a rule the runtime
   * remembers — `"tool"` every call of this tool, `"commands"` the request's `commands`.
   */
  readonly always?: "tool" | "commands";
  /** With `allow`, to a `refused` call: run it again with the grant, for this call, the session, or saved to the config too. */
  readonly grant?: GrantScope;
  /** With `deny`: why, passed on to the model. */
  readonly reason?: string;
}

/**
 * Whom an approver puts a question to: a person, every time; no one (it allows every call); or
 * a person only about a tainted session's calls (`ApprovalRequest.tainted`), allowing the rest
 * itself (`--yes` at a terminal). The runtime reads it, not the approver's identity: what it
 * shows only a person (the rule a bash line offers, a write's diff) is not worked out for a
 * question no one reads, a tainted call goes only to a person, and a refused call's grant is
 * offered only to one who asks a person every time.
 */
export type Asks = "person" | "no one" | "person if tainted";

/**
 * Asks about one call. Rejects (e.g. with the signal's reason) when the turn is cancelled
 * while waiting; the runtime then treats the call as cancelled. The runtime asks through one
 * approver one question at a time.
 */
export interface Approver {
  (request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  /** Whom it asks. @default "person" */
  readonly asks?: Asks;
}

/** Whom `approve` asks about `request`: "person" or "no one". */
export function whoAnswers(approve: Approver, request: ApprovalRequest): "person" | "no one" {
  const asks = approve.asks ?? "person";
  return asks === "person" || (asks === "person if tainted" && request.tainted !== undefined) ? "person" : "no one";
}

/**
 * Allows every call and asks no one: a person's own call (`plugboard call`), an app told to
 * allow everything (`--yes`). It never answers "always", so the runtime offers it no rule and
 * reads no bash line to derive one (the shell parser is not loaded for it), nor a file to show.
 * It is not asked about a call a tainted session makes: that needs a person (`ApprovalRequest.tainted`).
 */
export const approveAll: Approver = Object.assign(async (): Promise<ApprovalAnswer> => ({ decision: "allow" }), { asks: "no one" as const });
