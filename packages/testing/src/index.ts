export * from "@plugboard/scripted-model";
export { type CheckPluginOptions, checkPlugin } from "./check-plugin.ts";
export { CHECK_IDS, CHECKS, type CheckId, type CheckResult, type CheckStatus, type ConformanceReport } from "./checks.ts";
export { ESCAPE_LINKS, type EscapeFixture, escapeFixture, escapePaths } from "./escape-fixture.ts";
export { type ChildToolCall, peakRssOfToolCall, type ToolCallPeak, toolCallInChild } from "./peak-rss.ts";
export { type PluginRuntime, type PluginRuntimeOptions, pluginRuntime } from "./plugin-runtime.ts";
export { formatCheck, formatReport } from "./report.ts";
export { strictModeProblems } from "./strict-schema.ts";
