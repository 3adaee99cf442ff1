/**
 * `@plugboard/test-helpers`: Plugboard's own test helpers (private; the plugin authors' kit is
 * `@plugboard/testing`).
 */
export { ESCAPE_LINKS, type EscapeFixture, escapeFixture, escapePaths } from "./escape-fixture.ts";
export { awaitEscapeesCommand, ESCAPEE_COUNT, escapeesCommand, uniqueMarker } from "./escapees.ts";
export { type ChildToolCall, peakRssOfToolCall, type ToolCallPeak, toolCallInChild } from "./peak-rss.ts";
export {
  type CensusOptions,
  childrenOf,
  isRunning,
  killAll,
  type ProcessEntry,
  processesWhere,
  runningNamed,
  survivors,
  survivorsNamed,
  terminalOf,
} from "./processes.ts";
export { removeTempDirs, tempDir } from "./temp-dirs.ts";
export { REPO_PLUGBOARD } from "./repo-plugboard.ts";
export { type Found, waitFor, type WaitForOptions } from "./wait-for.ts";
export { type ManyTool, manyTools, NEEDLE_TOOL } from "./many-tools.ts";
