/**
 * `@plugboard/core`: the plugin contract — what plugin authors write tools with. The runtime
 * and agent loop that apps run tools with are `@plugboard/core/runtime`; internals shared by
 * Plugboard's own packages are `@plugboard/core/internal`.
 */
export { type Static, type TObject, type TSchema, Type } from "@sinclair/typebox";
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
export { errorResult, PathEscapeError, PluginOptionsError, structuredResult, textResult, ToolError } from "./errors.ts";
export { decodeText, fileErrors, fileSystemError, statFile } from "./file-checks.ts";
export { type Permission, PERMISSIONS } from "./permissions.ts";
export { createResultsFile, RESULTS_FOLDER, resultCutLine, resultDroppedLine, type ResultsFile, type ResultsLimits } from "./results.ts";
export { Workspace } from "./workspace.ts";
