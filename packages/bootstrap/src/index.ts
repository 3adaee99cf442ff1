export { type App, type BuildAppOptions, buildApp } from "./build-app.ts";
export {
  type AppConfig,
  type ConfigOverrides,
  DEFAULT_BASE_URL,
  DEFAULT_MAX_STEPS,
  DEFAULT_MODEL,
  type LoadConfigOptions,
  loadConfig,
  type McpEntry,
  type McpServerConfig,
  type ModelSettings,
  type PluginEntry,
} from "./config.ts";
export { PlugboardError, type PlugboardErrorCode } from "./errors.ts";
export type { LoadedPlugin } from "./loaded-plugin.ts";
export { MANIFEST_FILE } from "./manifest.ts";
export type { McpLauncher, MountedServer } from "./mount-server.ts";
export { FlagError } from "./messages.ts";
export type { ModelClient } from "./model-client.ts";
export { inspectPlugin, type PluginOrigin, type ResolvedPlugin } from "./resolve-plugin.ts";
export { addPluginEntry, type PackageEntry, removePluginEntry } from "./config-edit.ts";
export { PERMISSION_EFFECTS, PERMISSIONS, type Permission } from "./permissions.ts";
export { invocationCwd } from "./invocation.ts";
export { plantedRecordFile, refusePlanted, trustFile } from "./planted-files.ts";
export { type AppFlags, type StartAppOptions, type StartedApp, startApp } from "./start-app.ts";
