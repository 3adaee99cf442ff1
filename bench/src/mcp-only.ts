/**
 * `bun run --cwd bench mcp`: measures only the MCP suite, in full, and puts its figures in
 * place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md again. The
 * other figures stay those of the last full run; the load during this run is printed. A
 * quick look that leaves the committed figures alone: `bun run bench --quick --only mcp`.
 */
import { MCP_GROUP, mcp } from "./mcp/mcp.ts";
import { SERVED_LOAD_GROUP } from "./mcp/served-load.ts";
import { refreshSuite } from "./report/refresh-suite.ts";

await refreshSuite({ name: "mcp", groups: [MCP_GROUP, SERVED_LOAD_GROUP], suite: mcp });
