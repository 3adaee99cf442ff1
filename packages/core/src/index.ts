export * from "./agent-loop.ts";
export * from "./atomic-write.ts";
export * from "./contract.ts";
export * from "./errors.ts";
export * from "./file-checks.ts";
export * from "./registry.ts";
export * from "./runtime.ts";
export * from "./workspace.ts";
export type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval.ts";
export type { AuditDecision, AuditRecord, AuditSink } from "./audit.ts";
export {
  ALLOW_ALL,
  PATH_ARGUMENTS,
  type Policy,
  type PolicyAction,
  type PolicyRule,
  describeRule,
  wildcardMatch,
} from "./policy.ts";
