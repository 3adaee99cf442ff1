/**
 * `@plugboard/core`: the plugin contract and the TypeBox-schema registry — what plugin authors
 * write tools with, and what every plugin uses (the workspace, file checks, atomic writes, the
 * results file, permissions). Running a call is `@plugboard/runtime`; the model loop is
 * `@plugboard/agent`; internals shared by Plugboard's own packages are `@plugboard/core/internal`.
 * Its one dependency is TypeBox.
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
export { type Dialect, DIALECTS, refusedName, rewriteSchema, type SentSchema } from "./dialect.ts";
export { type FunctionTool, type RegisteredTool, type RegistryOptions, ToolRegistry } from "./registry.ts";
export {
  CUT_MARK,
  charactersCutLine,
  lineCutMark,
  createResultsFile,
  DEFAULT_RESULTS_LIMITS,
  prepareResultsFolder,
  RESULTS_FOLDER,
  resultCutLine,
  resultDroppedLine,
  type ResultsFile,
  ResultsFolderError,
  type ResultsLimits,
} from "./results.ts";
export { Workspace } from "./workspace.ts";
