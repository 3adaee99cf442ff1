/**
 * `bun run --cwd bench governance`: measures only the governance suite (what the runtime's
 * own steps add to a call), puts its figures in place of the ones in `bench/results/latest.json`
 * and renders BENCHMARKS.md again; the other figures stay those of the last full run. A quick
 * look that leaves the committed figures alone: `bun run bench --quick --only governance`.
 */
import { loadavg } from "node:os";
import { GOVERNANCE_GROUP, governance } from "./governance/governance.ts";
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { replaceGroups } from "./report/results-file.ts";

const mode = parseMode(process.argv.slice(2));
if (mode.quick || mode.only) throw new Error("bun run --cwd bench governance refreshes the committed figures, in full only; for a quick look: bun run bench --quick --only governance");
const load = () => loadavg().map((value) => value.toFixed(2)).join(" / ");
const before = load();
const log = new FigureLog();
await governance(mode, log);
mode.progress(`1 / 5 / 15-minute load average: ${before} at the start, ${load()} at the end`);
process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
await replaceGroups([GOVERNANCE_GROUP], log.figures);
