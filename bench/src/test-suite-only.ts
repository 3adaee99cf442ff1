/**
 * `bun run --cwd bench test-suite`: times only `bun run test` on a clean clone (suite 17), in
 * full, and puts its figures in place of the ones in `bench/results/latest.json`, then renders
 * BENCHMARKS.md again. The other figures stay those of the last full run; the load during
 * this run is in its rows.
 */
import { refreshSuite } from "./report/refresh-suite.ts";
import { TEST_SUITE_GROUP, testSuite } from "./test-suite/test-suite.ts";

await refreshSuite({ name: "test-suite", groups: [TEST_SUITE_GROUP], suite: testSuite, load: false });
