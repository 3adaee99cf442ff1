/**
 * `@plugboard/errors`: the one error of a failure a person acts on, `PlugboardError` with its
 * stable codes, and the one shape of a message about a config entry. No dependencies, so that
 * every stage (config, loader, sandbox, hosts, MCP) throws it without loading another's.
 */
export { PlugboardError, type PlugboardErrorCode } from "./plugboard-error.ts";
export { type EntryFailure, type EntryLocation, entryFailure, indent, type PluginAt } from "./entry-failure.ts";
