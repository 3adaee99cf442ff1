/**
 * What the runtime records about each call that reached the policy: one record per call,
 * given to the app's audit sink (bootstrap appends it as a JSON line to the config's
 * `audit` file).
 */
import type { GrantScope, MissingGrant } from "@plugboard/core/internal";
import type { HookEffect } from "./hooks.ts";

/** How the policy and the person decided: `ask:yes` / `ask:no` when someone (or `--yes`) was asked. */
export type AuditDecision = "allow" | "ask:yes" | "ask:no" | "deny";

/** One call. Field names are the audit log's JSON keys. */
export interface AuditRecord {
  /** When the call arrived, ISO 8601. */
  readonly ts: string;
  readonly session: string;
  readonly callId: string;
  readonly tool: string;
  /** The validated arguments. */
  readonly args: Readonly<Record<string, unknown>>;
  /** What the model sent, when it had to be repaired to run: the tool's name as written, the raw arguments. */
  readonly repaired?: { readonly tool?: string; readonly arguments?: string };
  readonly decision: AuditDecision;
  /** The rule that decided, as the config writes it (`write_file path=secrets/*`); absent when the default did. */
  readonly rule?: string;
  /** The session's taint the call was judged under: it can send data out, and untrusted content from tool `by` had entered the conversation. */
  readonly tainted?: { readonly by: string };
  /** The result is untrusted: the tool could read the outside world, and it ran. */
  readonly untrusted?: true;
  /** What each hook that ran did, in order (before hooks, then after hooks); absent when none ran. */
  readonly hooks?: readonly HookEffect[];
  /** The grant a person gave the call after the sandbox refused it, and for how long; the call then ran again with it. */
  readonly granted?: MissingGrant & { readonly scope: GrantScope };
  /** From arrival to result, approval time included. */
  readonly durationMs: number;
  readonly isError: boolean;
  /** UTF-8 bytes of the result text. */
  readonly resultBytes: number;
  /** Secrets replaced by `[redacted: NAME]` in what the model got; absent when none. */
  readonly redactions?: number;
}

/** Receives each record; must not throw for an ordinary call. */
export type AuditSink = (record: AuditRecord) => void;
