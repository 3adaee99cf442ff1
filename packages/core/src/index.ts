/**
 * @plugboard/core's public surface: what plugin authors write tools with, and what apps run
 * them with. Internals for Plugboard's own packages are in `@plugboard/core/internal`.
 */
export { type Static, type TObject, type TSchema, Type } from "@sinclair/typebox";
export {
  type AgentEvent,
  type AgentLoopOptions,
  type AgentLoopResult,
  type AgentStatus,
  runAgentLoop,
} from "./agent-loop.ts";
export { writeFileAtomic } from "./atomic-write.ts";
export {
  type AnyToolDefinition,
  type Concurrency,
  CONTRACT_VERSION,
  definePlugin,
  defineTool,
  type Logger,
  type Plugin,
  type PluginContext,
  silentLogger,
  TOOL_NAME_PATTERN,
  type ToolContext,
  type ToolDefinition,
  type ToolResult,
} from "./contract.ts";
export {
  errorResult,
  ModelResponseError,
  PathEscapeError,
  PluginError,
  PluginOptionsError,
  textResult,
  ToolError,
  WorkspaceError,
} from "./errors.ts";
export { decodeText, fileErrors, fileSystemError, statFile } from "./file-checks.ts";
export { type Permission, PERMISSIONS } from "./permissions.ts";
export { type RegisteredTool, ToolRegistry } from "./registry.ts";
export { type ExecuteOptions, type RuntimeOptions, ToolRuntime } from "./runtime.ts";
export { Workspace } from "./workspace.ts";
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
