/**
 * `bun run --cwd bench sandbox`: measures only the sandbox suite, in full, and puts its
 * figures in place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md
 * again. The other figures stay those of the last full run; the load during this run is
 * in its rows. A quick look that leaves the committed figures alone:
 * `bun run bench --quick --only sandbox`.
 */
import { SANDBOX_GROUPS } from "./sandbox/groups.ts";
import { sandbox } from "./sandbox/sandbox.ts";
import { refreshSuite } from "./report/refresh-suite.ts";

await refreshSuite({ name: "sandbox", groups: SANDBOX_GROUPS, suite: sandbox, load: false });
