/** When the model is sent `tool_search` instead of every tool: the config's `tools` key, held by the runtime. */

/** The settings, as `ToolRuntime` takes them. */
export interface ToolSearchSettings {
  /** With more enabled tools than this, the model gets `tool_search` and the pinned tools instead of every tool. @default 64 */
  readonly searchOver: number;
  /** Names of enabled tools always sent with `tool_search`. @default none */
  readonly pinned: readonly string[];
}

/** The built-in search tool's name. */
export const TOOL_SEARCH = "tool_search";

/** Search over 64 tools, nothing pinned. */
export const DEFAULT_TOOL_SEARCH: ToolSearchSettings = Object.freeze({ searchOver: 64, pinned: Object.freeze([]) });

/** What tools of `names` cannot honour in `settings`: pinned names no tool has, and whether the search is on over a tool of their own named `tool_search`, which it would hide. */
export function toolSearchProblems(settings: ToolSearchSettings, names: readonly string[]): { readonly unknown: readonly string[]; readonly hidden: boolean } {
  return { unknown: settings.pinned.filter((name) => !names.includes(name)), hidden: names.length > settings.searchOver && names.includes(TOOL_SEARCH) };
}

/**
 * Throws a `RangeError` for settings no registry of `names` can use: a `searchOver` that is
 * not a whole number, or one of `toolSearchProblems`. Apps check the config first with the
 * same problems, in a message for a person.
 */
export function checkToolSearch(settings: ToolSearchSettings, names: readonly string[]): void {
  if (!Number.isInteger(settings.searchOver) || settings.searchOver < 0) throw new RangeError(`toolSearch.searchOver must be a whole number, got ${settings.searchOver}`);
  const { unknown, hidden } = toolSearchProblems(settings, names);
  if (unknown.length > 0) throw new RangeError(`toolSearch.pinned names tools that are not registered: ${unknown.join(", ")}`);
  if (hidden) throw new RangeError(`a registered tool is named ${TOOL_SEARCH}, which the tool search would hide`);
}
