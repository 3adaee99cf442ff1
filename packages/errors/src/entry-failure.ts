/**
 * The one shape of a message about an entry of the config's `plugins`, a plugin or an MCP
 * server, whichever stage finds the problem (the loader, an MCP mount): what is wrong, naming
 * it; indented details (each problem, the files involved) and where it is listed; then what
 * to change.
 */
import { PlugboardError, type PlugboardErrorCode } from "./plugboard-error.ts";

/** Where an entry is listed: its index in `plugins` and the config file. */
export interface EntryLocation {
  readonly index: number;
  readonly configPath: string;
}

/** A plugin or MCP server by name and its index in `plugins`. */
export interface PluginAt {
  readonly name: string;
  readonly index: number;
}

/** What a failure of one entry says. */
export interface EntryFailure {
  /** What is wrong, naming the plugin or server. */
  readonly problem: string;
  /** Indented lines: each problem, the files involved. */
  readonly details?: readonly string[];
  /** What to change. */
  readonly fix: string;
  readonly cause?: unknown;
}

/**
 * The error of `failure`, an entry's: its problem, its details, the line naming the entry in
 * the config, its fix.
 *
 * @example entryFailure("PLUGIN_OPTIONS", { index: 0, configPath }, { problem: "Plugin x has invalid options:", details, fix })
 */
export function entryFailure(code: PlugboardErrorCode, where: EntryLocation, failure: EntryFailure): PlugboardError {
  const lines = [failure.problem, ...(failure.details ?? []).map(indent), indent(`config: plugins[${where.index}] in ${where.configPath}`), failure.fix];
  return new PlugboardError(code, lines.join("\n"), failure.cause === undefined ? undefined : { cause: failure.cause });
}

/** `line` as a detail under a message's first line. */
export function indent(line: string): string {
  return `  ${line}`;
}
