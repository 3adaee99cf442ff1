export * from "./agent-loop.ts";
export * from "./atomic-write.ts";
export * from "./contract.ts";
export * from "./errors.ts";
export * from "./file-checks.ts";
export * from "./registry.ts";
export * from "./runtime.ts";
export * from "./workspace.ts";
