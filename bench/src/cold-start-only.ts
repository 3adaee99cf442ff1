/**
 * `bun run --cwd bench cold-start`: measures only the cold-start suite, in full, and puts its
 * figures in place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md
 * again. The other figures stay those of the last full run. A quick look that leaves the
 * committed figures alone: `bun run bench --quick --only cold-start`.
 */
import { loadavg } from "node:os";
import { COLD_START_CPU_GROUP, COLD_START_GROUP, coldStart } from "./cold-start.ts";
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { replaceGroups } from "./report/results-file.ts";

const mode = parseMode(process.argv.slice(2));
if (mode.quick || mode.only) throw new Error("bun run --cwd bench cold-start refreshes the committed figures, in full only; for a quick look: bun run bench --quick --only cold-start");
const load = () => loadavg().map((value) => value.toFixed(2)).join(" / ");
const before = load();
const log = new FigureLog();
await coldStart(mode, log);
mode.progress(`1 / 5 / 15-minute load average: ${before} at the start, ${load()} at the end`);
process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
await replaceGroups([COLD_START_GROUP, COLD_START_CPU_GROUP], log.figures);
