/**
 * `bun run --cwd bench egress`: measures only the egress proxy's part of the sandbox suite
 * (sandbox/egress.ts) and puts its figures in place of the ones in
 * `bench/results/latest.json`, then renders BENCHMARKS.md again. The other figures stay
 * those of the last full run. A quick look that leaves the committed figures alone:
 * `bun run bench --quick --only sandbox`.
 */
import { loadavg } from "node:os";
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { replaceGroups } from "./report/results-file.ts";
import { egress } from "./sandbox/egress.ts";
import { EGRESS_GROUP } from "./sandbox/groups.ts";

const mode = parseMode(process.argv.slice(2));
if (mode.quick || mode.only) throw new Error("bun run --cwd bench egress refreshes the committed figures, in full only; for a quick look: bun run bench --quick --only sandbox");
const load = () => loadavg().map((value) => value.toFixed(2)).join(" / ");
const before = load();
const log = new FigureLog();
await egress(mode, log);
mode.progress(`1 / 5 / 15-minute load average: ${before} at the start, ${load()} at the end`);
process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
await replaceGroups([EGRESS_GROUP], log.figures);
