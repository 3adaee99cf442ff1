export type { BuildAppOptions } from "./app-options.ts";
export { type App, buildApp } from "./build-app.ts";
export type { McpLauncher, MountedServer } from "./mount-server.ts";
export { scanTool } from "./description-scan.ts";
export { acceptedLine, type ChangedTools, type Pinning, type ToolChange, withheldLine } from "./pinned-tools.ts";
export { type CodeChange, type CodePinning, withheldCodeLine } from "./code-pins.ts";
export { openWorkspace } from "./plan.ts";
export { type AppFlags, type StartAppOptions, type StartedApp, startApp, startConfig } from "./start-app.ts";
export { endOnStrayPluginErrors } from "./stray-errors.ts";
export { type TaintRoles, taintRoles } from "./taint-tools.ts";
// What the apps use of the packages the app is assembled from.
export {
  addPluginEntry,
  type AppConfig,
  type ConfigOverrides,
  DEFAULT_MAX_STEPS,
  DEFAULT_MODEL,
  type EntryKey,
  FlagError,
  invocationCwd,
  type LoadConfigOptions,
  loadConfig,
  type McpEntry,
  type McpServerConfig,
  type PackageEntry,
  type PluginEntry,
  removePluginEntry,
} from "@plugboard/config";
export { PlugboardError, type PlugboardErrorCode } from "@plugboard/errors";
export { PERMISSIONS, type Permission } from "@plugboard/core";
export { PERMISSION_EFFECTS } from "@plugboard/sandbox/grants";
export { plantedRecordFile, refusePlanted, trustFile, writeTrusted } from "@plugboard/sandbox/planted-files";
export type { LoadedPlugin } from "@plugboard/loader/loaded-plugin";
export { type HostPrograms, shippedPrograms } from "@plugboard/hosts/shipped-programs";
export { MANIFEST_FILE } from "@plugboard/loader/manifest";
export { inspectPlugin, type PluginOrigin, type ResolvedPlugin } from "@plugboard/loader/resolve-plugin";
export type { ModelClient } from "@plugboard/agent";
export { DEFAULT_BASE_URL, type ModelSettings } from "@plugboard/agent/settings";
