/**
 * Asking a person about one tool call. The runtime calls an app's `Approver` when the
 * policy says `ask`; the app shows the tool and its arguments (a terminal prompt, a card in
 * a page) and answers. Remembering "always" for the rest of a session is the app's job.
 */

/** One call waiting for a person's answer. */
export interface ApprovalRequest {
  /** The call id (the model's tool call id, `"direct"` for a person's own call). */
  readonly id: string;
  readonly tool: string;
  /** The validated arguments, as the handler would receive them. */
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** A person's answer. */
export interface ApprovalAnswer {
  readonly decision: "allow" | "deny";
  /** With `allow`: allow this tool for the rest of the session (the app keeps that state). */
  readonly always?: boolean;
  /** With `deny`: why, passed on to the model. */
  readonly reason?: string;
}

/**
 * Asks about one call. Rejects (e.g. with the signal's reason) when the turn is cancelled
 * while waiting; the runtime then treats the call as cancelled.
 */
export type Approver = (request: ApprovalRequest, signal: AbortSignal) => Promise<ApprovalAnswer>;
