/**
 * `bun run --cwd bench description-scan`: measures only the description scan (section 15), in
 * full, and puts its figures in place of the ones in `bench/results/latest.json`, then renders
 * BENCHMARKS.md again. The other figures stay those of the last full run; the load during this
 * run is printed. A quick look that leaves the committed figures alone:
 * `bun run bench --quick --only description-scan`.
 */
import { DESCRIPTION_SCAN_GROUP, descriptionScan } from "./description-scan/description-scan.ts";
import { refreshSuite } from "./report/refresh-suite.ts";

await refreshSuite({ name: "description-scan", groups: [DESCRIPTION_SCAN_GROUP], suite: descriptionScan });
