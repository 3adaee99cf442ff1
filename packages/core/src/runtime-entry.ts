/**
 * `@plugboard/core/runtime`: what apps run tools with — the registry, the runtime (dispatch,
 * policy, audit), the agent loop, and the errors an app reports to a person.
 */
export {
  type AgentEvent,
  type AgentLoopOptions,
  type AgentLoopResult,
  type AgentStatus,
  runAgentLoop,
} from "./agent-loop.ts";
export type { ApprovalAnswer, ApprovalRequest, Approver } from "./approval.ts";
export type { AuditDecision, AuditRecord, AuditSink } from "./audit.ts";
export { DEFAULT_HOOK_TIMEOUT_MS, type Hook, type HookEffect, type Hooks, hooksFor, NO_HOOKS } from "./hooks.ts";
export { ModelResponseError, PluginError, WorkspaceError } from "./errors.ts";
export {
  ALLOW_ALL,
  PATH_ARGUMENTS,
  type PolicyVerdict,
  SHELL_TOOLS,
  decide,
  type Policy,
  type PolicyAction,
  type PolicyRule,
  describeRule,
  wildcardMatch,
} from "./policy.ts";
export { type RegisteredTool, ToolRegistry } from "./registry.ts";
export { capResult, DEFAULT_RESULTS_LIMITS, prepareResultsFolder, ResultsFolderError, resultsFileFor, safeResultName } from "./results.ts";
export { type ExecuteOptions, type RuntimeOptions, ToolRuntime } from "./runtime.ts";
export { SEARCH_RESULTS } from "./tool-search.ts";
export { DEFAULT_TOOL_SEARCH, TOOL_SEARCH, type ToolSearchSettings } from "./tool-search-settings.ts";
