export {
  type AppConfig,
  type ConfigOverrides,
  DEFAULT_MAX_STEPS,
  DEFAULT_MODEL,
  type LoadConfigOptions,
  loadConfig,
  type McpEntry,
  type McpServerConfig,
  type PluginEntry,
  type SandboxMode,
} from "./config.ts";
export { addEntryGrant, addPluginEntry, addPolicyRule, type EntryKey, type PackageEntry, type PathEntry, type RuleEntry, removePluginEntry, type ServerKey } from "./config-edit.ts";
export { locatePolicy, type PolicySource, type WrittenEntry } from "./config-locate.ts";
export { invocationCwd } from "./invocation.ts";
export { FlagError } from "./messages.ts";
export { PROTECT_DEPTH_RANGE } from "./config-schema.ts";
export type { ModelSettings } from "@plugboard/agent/settings";
