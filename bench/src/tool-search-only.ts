/**
 * `bun run --cwd bench tool-search`: measures only the tool-search suite, in full, and puts its figures in
 * place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md again. The
 * other figures stay those of the last full run; the load during this run is printed. A
 * quick look that leaves the committed figures alone: `bun run bench --quick --only tool-search`.
 */
import { DIALECTS_GROUP } from "./tool-search/dialects.ts";
import { TOOL_SEARCH_GROUP, toolSearch } from "./tool-search/tool-search.ts";
import { refreshSuite } from "./report/refresh-suite.ts";

await refreshSuite({ name: "tool-search", groups: [TOOL_SEARCH_GROUP, DIALECTS_GROUP], suite: toolSearch });
