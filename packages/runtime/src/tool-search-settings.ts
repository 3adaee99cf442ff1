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

/**
 * Throws a `RangeError` for settings no registry of `names` can use: a `searchOver` that is
 * not a whole number, a pinned name no tool has, or a tool of its own named `tool_search`
 * where the search would hide it. Apps check the config first, with a message for a person.
 */
export function checkToolSearch(settings: ToolSearchSettings, names: readonly string[]): void {
  if (!Number.isInteger(settings.searchOver) || settings.searchOver < 0) throw new RangeError(`toolSearch.searchOver must be a whole number, got ${settings.searchOver}`);
  const unknown = settings.pinned.filter((name) => !names.includes(name));
  if (unknown.length > 0) throw new RangeError(`toolSearch.pinned names tools that are not registered: ${unknown.join(", ")}`);
  if (names.length > settings.searchOver && names.includes(TOOL_SEARCH)) throw new RangeError(`a registered tool is named ${TOOL_SEARCH}, which the tool search would hide`);
}
