/**
 * `bun run bench [--quick]`: runs every suite in order, prints the table, writes every
 * figure to `bench/results/latest.json`, then BENCHMARKS.md (repo root) from that file; a
 * quick run, or one of some suites only (`--only cold-start,loop-http`), writes
 * `bench/results/quick.json` and `quick.md` instead.
 */
import { authorInstall } from "./author-install/author-install.ts";
import { bigInputs } from "./big-inputs/big-inputs.ts";
import { coldStart } from "./cold-start.ts";
import { descriptionScan } from "./description-scan/description-scan.ts";
import { dispatch } from "./dispatch/dispatch.ts";
import { governance } from "./governance/governance.ts";
import { pageBundle } from "./page-bundle.ts";
import { parallelCalls } from "./parallel/parallel.ts";
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { leftovers } from "./leftovers/leftovers.ts";
import { inProcessLoop } from "./loop/in-process.ts";
import { mcp } from "./mcp/mcp.ts";
import { oneShot } from "./one-shot/one-shot.ts";
import { httpLoop } from "./loop/over-http.ts";
import { BENCHMARKS_PATH, QUICK_BENCHMARKS_PATH, writeBenchmarksMd } from "./report/benchmarks-md.ts";
import { startEnvironment } from "./report/environment.ts";
import { QUICK_RESULTS_PATH, RESULTS_PATH, readResults, writeResults } from "./report/results-file.ts";
import { sandbox } from "./sandbox/sandbox.ts";
import { scale } from "./scale/scale.ts";
import { testSuite } from "./test-suite/test-suite.ts";
import { toolSearch } from "./tool-search/tool-search.ts";

const mode = parseMode(process.argv.slice(2));
const environment = startEnvironment(mode.quick);
const log = new FigureLog();
mode.progress(`${mode.quick ? "quick" : "full"} run; 1-minute load average ${environment.loadAtStart[0]?.toFixed(2)}`);

const SUITES = {
  "loop-in-process": inProcessLoop,
  "loop-http": httpLoop,
  parallel: parallelCalls,
  dispatch,
  "cold-start": coldStart,
  scale,
  "big-inputs": bigInputs,
  "page-bundle": pageBundle,
  mcp,
  sandbox,
  "tool-search": toolSearch,
  leftovers,
  "author-install": authorInstall,
  "one-shot": oneShot,
  "description-scan": descriptionScan,
  governance,
  "test-suite": testSuite,
};
const unknown = mode.only?.filter((name) => !(name in SUITES)) ?? [];
if (unknown.length > 0) throw new Error(`Unknown suite ${unknown.join(", ")}; the suites: ${Object.keys(SUITES).join(", ")}`);
for (const [name, suite] of Object.entries(SUITES)) {
  if (mode.only && !mode.only.includes(name)) continue;
  // The load at the end of the timings is taken before the test suite, which loads the machine itself.
  if (name === "test-suite") environment.timingsEnded();
  // Each suite starts with the garbage of the previous one collected.
  Bun.gc(true);
  await suite(mode, log);
}

process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
// A quick or partial run writes beside the full run's files, never over them.
const [resultsPath, reportPath] = mode.quick || mode.only ? [QUICK_RESULTS_PATH, QUICK_BENCHMARKS_PATH] : [RESULTS_PATH, BENCHMARKS_PATH];
await writeResults({ environment: environment.finish(), figures: log.figures }, resultsPath);
await writeBenchmarksMd(await readResults(resultsPath), reportPath);
mode.progress(`wrote ${resultsPath} and ${reportPath}`);
