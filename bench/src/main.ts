/**
 * `bun run bench [--quick]`: runs every suite in order, prints the table, writes every
 * figure to `bench/results/latest.json`, then BENCHMARKS.md (repo root) from that file.
 */
import { bigInputs } from "./big-inputs/big-inputs.ts";
import { coldStart } from "./cold-start.ts";
import { dispatch } from "./dispatch/dispatch.ts";
import { pageBundle } from "./page-bundle.ts";
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { inProcessLoop } from "./loop/in-process.ts";
import { mcp } from "./mcp/mcp.ts";
import { httpLoop } from "./loop/over-http.ts";
import { BENCHMARKS_PATH, writeBenchmarksMd } from "./report/benchmarks-md.ts";
import { startEnvironment } from "./report/environment.ts";
import { RESULTS_PATH, readResults, writeResults } from "./report/results-file.ts";
import { scale } from "./scale/scale.ts";

const mode = parseMode(process.argv.slice(2));
const environment = startEnvironment(mode.quick);
const log = new FigureLog();
mode.progress(`${mode.quick ? "quick" : "full"} run; 1-minute load average ${environment.loadAtStart[0]?.toFixed(2)}`);

for (const suite of [inProcessLoop, httpLoop, dispatch, coldStart, scale, bigInputs, pageBundle, mcp]) {
  // Each suite starts with the garbage of the previous one collected.
  Bun.gc(true);
  await suite(mode, log);
}

process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
await writeResults({ environment: environment.finish(), figures: log.figures });
await writeBenchmarksMd(await readResults());
mode.progress(`wrote ${RESULTS_PATH} and ${BENCHMARKS_PATH}`);
