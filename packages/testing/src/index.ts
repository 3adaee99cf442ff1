export * from "@plugboard/scripted-model";
export { CHECK_INPUTS_FILE, type CheckInputs, CheckInputsSchema, readCheckInputs } from "./check-inputs.ts";
export { type CheckPluginOptions, checkPlugin } from "./check-plugin.ts";
export { CHECK_IDS, CHECKS, type CheckId, type CheckResult, type CheckStatus, type ConformanceReport } from "./checks.ts";
export { type PluginRuntime, type PluginRuntimeOptions, pluginRuntime } from "./plugin-runtime.ts";
export { formatCheck, formatReport } from "./report.ts";
export { strictModeProblems } from "./strict-schema.ts";
export { type ManifestSync, syncManifest } from "./sync-manifest.ts";
export { changeLine, manifestDescription, type ToolChange, type ToolLine } from "./tool-list.ts";
