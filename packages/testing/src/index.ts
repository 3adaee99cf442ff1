export * from "@plugboard/scripted-model";
export { type CheckPluginOptions, checkPlugin } from "./check-plugin.ts";
export { CHECK_IDS, CHECKS, type CheckId, type CheckResult, type CheckStatus, type ConformanceReport } from "./checks.ts";
export { formatCheck, formatReport } from "./report.ts";
export { strictModeProblems } from "./strict-schema.ts";
