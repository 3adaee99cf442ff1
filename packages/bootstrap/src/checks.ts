/**
 * The checks of a config against the tools its plugins and servers provide, each written
 * once: two entries may not provide one tool name (checked from the manifests before any
 * plugin's code runs, then with the servers' tools), the `tools` settings must fit the tools
 * (runtime's `toolSearchProblems`); the names the config gives tools are config-names.ts's.
 * Each failure is a `PlugboardError` saying what to change.
 */
import type { AppConfig } from "@plugboard/config";
import { configErrors } from "@plugboard/config/messages";
import { pluginErrors } from "@plugboard/loader/messages";
import { mcpErrors } from "@plugboard/mcp/messages";
import { refusedName } from "@plugboard/core";
import { TOOL_SEARCH, toolSearchProblems } from "@plugboard/runtime";
import type { Provided } from "./open-sources.ts";

/** An entry of the config with the names of its tools. */
export interface ToolOwner {
  /** Its index in the config's `plugins`. */
  readonly index: number;
  /** The plugin's name, or the server entry's. */
  readonly name: string;
  readonly mcp: boolean;
  readonly tools: readonly string[];
}

/** Throws `PLUGIN_DUPLICATE_TOOL` for the first tool name two owners (in config order) provide: a clash involving a server names `prefix` as the fix. */
export function checkToolNames(config: AppConfig, owners: readonly ToolOwner[]): void {
  const taken = new Map<string, ToolOwner>();
  for (const owner of owners) {
    for (const tool of owner.tools) {
      const first = taken.get(tool);
      if (first === undefined) {
        taken.set(tool, owner);
        continue;
      }
      if (!first.mcp && !owner.mcp) throw pluginErrors.duplicateTool(tool, first, owner, config.configPath);
      throw mcpErrors.duplicateTool(tool, first, owner, owner.mcp ? owner : first, config.configPath);
    }
  }
}

/** The tools the open sources provide, checked: their names (servers' included) and the tool search; throws what is to change. */
export function checkProvided(config: AppConfig, provided: readonly Provided[]): void {
  checkToolNames(config, provided.map(({ index, owner, mcp, entries }) => ({ index, name: owner, mcp, tools: entries.map(({ tool }) => tool.name) })));
  checkDialectNames(config, provided);
  const names = provided.flatMap(({ entries }) => entries.map(({ tool }) => tool.name));
  const { hidden } = toolSearchProblems(config.tools, names);
  const taken = hidden ? provided.find(({ entries }) => entries.some(({ tool }) => tool.name === TOOL_SEARCH)) : undefined;
  if (taken !== undefined) throw configErrors.toolSearchTaken(config.configPath, { name: taken.owner, index: taken.index }, config.tools.searchOver, names.length);
}

/** Throws `CONFIG_INVALID` for the first tool name the model's dialect refuses (Gemini's names start with a letter or `_`). */
function checkDialectNames(config: AppConfig, provided: readonly Provided[]): void {
  const { dialect } = config.model;
  for (const { index, owner, mcp, entries } of provided) {
    for (const { tool } of entries) {
      const reason = refusedName(tool.name, dialect);
      if (reason !== undefined) throw configErrors.toolNameRefused(config.configPath, { name: owner, index, mcp }, tool.name, reason);
    }
  }
}
