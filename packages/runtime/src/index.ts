/**
 * `@plugboard/runtime`: one tool call on top of core's registry — arguments read (and repaired)
 * once, the gate (policy with parsed shell rules and the session's remembered rules, hooks,
 * approvals asked through a callback), the handler run, the app's secrets taken out of the
 * result (redaction), the result capped to its results file, the session's taint, and the
 * audit record.
 */
export { type ApprovalAnswer, type ApprovalRequest, type Approver, approveAll, type Asks, type RefusedCall } from "./approval.ts";
export { type ChangeRow, type FileChange, rowMark } from "./row-mark.ts";
export type { AuditDecision, AuditRecord, AuditSink } from "./audit.ts";
export type { DerivedCommandRule } from "./derived-rule.ts";
export { describeGrant, type GivenGrant } from "./grant-offer.ts";
export { DEFAULT_HOOK_TIMEOUT_MS, type Hook, type HookEffect, type Hooks, hooksFor, NO_HOOKS } from "./hooks.ts";
export { ALLOW_ALL, decide, describeRule, PATH_ARGUMENTS, type Policy, type PolicyAction, type PolicyRule, type PolicyVerdict, SHELL_TOOLS, wildcardMatch } from "./policy.ts";
export { namesSecret, REDACTED_MARK, type Redacted, Redactor, type Secret, secretsOfEnv } from "./redaction.ts";
export { type ArgumentsReading, toolNamed } from "./repair.ts";
export type { PreparedCall } from "./prepared-call.ts";
export { type CallResult, type ExecuteOptions, type RuntimeOptions, ToolRuntime } from "./runtime.ts";
export { DEFAULT_TAINT, TAINT_MODES, type Taint, type TaintMode, type TaintTools } from "./taint.ts";
export { checkToolSearch, DEFAULT_TOOL_SEARCH, TOOL_SEARCH, type ToolSearchSettings, toolSearchProblems } from "./tool-search-settings.ts";
