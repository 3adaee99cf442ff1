/**
 * `bun run --cwd bench governance`: measures only the governance suite (the session's taint),
 * in full, and puts its figures in place of the ones in `bench/results/latest.json`, then
 * renders BENCHMARKS.md again. The other figures stay those of the last full run; the load
 * during this run is printed. A quick look that leaves the committed figures alone: `bun run
 * bench --quick --only governance`.
 */
import { loadavg } from "node:os";
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { TAINT_GROUP, taint } from "./governance/taint.ts";
import { replaceGroups } from "./report/results-file.ts";

const mode = parseMode(process.argv.slice(2));
if (mode.quick || mode.only) throw new Error("bun run --cwd bench governance refreshes the committed figures, in full only; for a quick look: bun run bench --quick --only governance");
const load = () => loadavg().map((value) => value.toFixed(2)).join(" / ");
const before = load();
const log = new FigureLog();
await taint(mode, log);
mode.progress(`1 / 5 / 15-minute load average: ${before} at the start, ${load()} at the end`);
process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
await replaceGroups([TAINT_GROUP], log.figures);
