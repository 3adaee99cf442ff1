/**
 * Internals shared by Plugboard's own packages (runtime, agent, bootstrap, the testing kit, the
 * apps): not part of the contract plugins are written against, and free to change in any release.
 */
export { ERROR_PREFIX, isCancellation, PluginError, toolErrors, WorkspaceError } from "./errors.ts";
export { type ArgumentsValidator, DuplicateToolError, type RegistryEntry } from "./registry.ts";
export {
  fieldProblems,
  formatPath,
  formatSchemaErrors,
  type PointerProblem,
  pointerProblems,
  type SchemaProblem,
} from "./schema-errors.ts";
export { GrantedRunners } from "./granted-runners.ts";
export { LazyLoadError, lazily, lazilySync } from "./lazily.ts";
export { plural } from "./plural.ts";
export { capResult, resultsFileFor, safeResultName } from "./result-caps.ts";
export { MAX_SCHEMA_NODES } from "./schema-bounds.ts";
export { answeredOrCancelled, CANCEL_GRACE_MS, runHandler } from "./run-handler.ts";
export { type CloseOptions, type GrantEntry, grantEntry, type GrantScope, type MissingGrant, type ToolSource } from "./tool-source.ts";
export { visible } from "./visible.ts";
export { BoundedReadError, MAX_READ_BYTES, readFileBounded, readRegularText, readTextBounded } from "./bounded-read.ts";
