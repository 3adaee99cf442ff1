/**
 * `bun run --cwd bench sandbox`: measures only the sandbox suite, in full, and puts its
 * figures in place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md
 * again. The other figures stay those of the last full run; the load during this run is
 * in its rows. A quick look that leaves the committed figures alone:
 * `bun run bench --quick --only sandbox`.
 */
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { replaceGroups } from "./report/results-file.ts";
import { SANDBOX_GROUPS } from "./sandbox/groups.ts";
import { sandbox } from "./sandbox/sandbox.ts";

const mode = parseMode(process.argv.slice(2));
if (mode.quick || mode.only) throw new Error("bun run --cwd bench sandbox refreshes the committed figures, in full only; for a quick look: bun run bench --quick --only sandbox");
const log = new FigureLog();
await sandbox(mode, log);
process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
await replaceGroups(SANDBOX_GROUPS, log.figures);
