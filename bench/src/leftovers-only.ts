/**
 * `bun run --cwd bench leftovers`: measures only the after-call walk (suite 12), in full, and
 * puts its figures in place of the ones in `bench/results/latest.json`, then renders
 * BENCHMARKS.md again. The other figures stay those of the last full run; the load during
 * this run is printed. A quick look that leaves the committed figures alone:
 * `bun run bench --quick --only leftovers`.
 */
import { LEFTOVERS_GROUP, leftovers } from "./leftovers/leftovers.ts";
import { refreshSuite } from "./report/refresh-suite.ts";

await refreshSuite({ name: "leftovers", groups: [LEFTOVERS_GROUP], suite: leftovers });
