/** The sandbox suite's groups of figures, as every report names them. */

/** Calls through a confined host, and whole-app start-ups. */
export const SANDBOX_GROUP = "Sandbox: confined plugin hosts";
/** The real CLI with the shipped config: its memory, and its first confined call. */
export const CLI_GROUP = "Sandbox: the CLI, its five plugins confined against the sandbox off";
/** The same file operations in a confined process and in a plain one. */
export const FILE_OPERATIONS_GROUP = "Sandbox: file operations, confined against unconfined";
/** One host's start taken apart: the view's computation, the namespaces, the confining step. */
export const START_STEPS_GROUP = "Sandbox: one host's start, step by step";
/** `plugboard tools` with an `npx -y` MCP server, its second start. */
export const NPX_GROUP = "Sandbox: an npx -y MCP server, confined";

/** A request through a narrowed network's egress proxy, against the same request made directly. */
export const EGRESS_GROUP = "Sandbox: a narrowed network's egress proxy";

/** Every group of the suite, in the report's order. */
export const SANDBOX_GROUPS = [SANDBOX_GROUP, CLI_GROUP, FILE_OPERATIONS_GROUP, START_STEPS_GROUP, NPX_GROUP, EGRESS_GROUP] as const;
