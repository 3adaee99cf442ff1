/**
 * `bun run --cwd bench governance`: measures only the governance suite (what the runtime's
 * own steps add to a call), puts its figures in place of the ones in `bench/results/latest.json`
 * and renders BENCHMARKS.md again; the other figures stay those of the last full run. A quick
 * look that leaves the committed figures alone: `bun run bench --quick --only governance`.
 */
import { GOVERNANCE_GROUP, governance } from "./governance/governance.ts";
import { refreshSuite } from "./report/refresh-suite.ts";

await refreshSuite({ name: "governance", groups: [GOVERNANCE_GROUP], suite: governance });
