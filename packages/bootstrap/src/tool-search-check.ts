/**
 * The config's `tools` key checked against the tools the app built: a pinned name no plugin
 * or server provides, or a tool of their own named `tool_search` while the search is on, is
 * a config error saying what to change, before anything runs.
 */
import type { AppConfig } from "@plugboard/config";
import { configErrors } from "@plugboard/config/messages";
import { TOOL_SEARCH } from "@plugboard/runtime";
import type { RegistryEntry } from "@plugboard/core/internal";

/** The app's tools, by config index: who provides them. */
type Provided = readonly (readonly [number, { readonly entries: readonly RegistryEntry[] }])[];

/** Throws `CONFIG_INVALID` for `tools` settings the app's tools cannot honour. */
export function checkToolSearch(config: AppConfig, provided: Provided): void {
  const names = provided.flatMap(([, { entries }]) => entries.map(({ tool }) => tool.name));
  const unknown = config.tools.pinned.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw configErrors.pinnedUnknown(config.configPath, unknown);
  if (names.length <= config.tools.searchOver) return;
  for (const [index, { entries }] of provided) {
    const taken = entries.find(({ tool }) => tool.name === TOOL_SEARCH);
    if (taken) throw configErrors.toolSearchTaken(config.configPath, { name: taken.owner ?? `plugins[${index}]`, index }, config.tools.searchOver, names.length);
  }
}
