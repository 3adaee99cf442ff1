/**
 * `bun run --cwd bench cold-start`: measures only the cold-start suite, in full, and puts its
 * figures in place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md
 * again. The other figures stay those of the last full run. A quick look that leaves the
 * committed figures alone: `bun run bench --quick --only cold-start`.
 */
import { COLD_START_CPU_GROUP, COLD_START_GROUP, coldStart } from "./cold-start.ts";
import { refreshSuite } from "./report/refresh-suite.ts";

await refreshSuite({ name: "cold-start", groups: [COLD_START_GROUP, COLD_START_CPU_GROUP], suite: coldStart });
