/**
 * `bun run --cwd bench author-install`: measures only a plugin author's install (suite 13) and
 * puts its figures in place of the ones in `bench/results/latest.json`, then renders
 * BENCHMARKS.md again. The other figures and the run's environment stay those of the last
 * full run; these are sizes and counts, which do not depend on the machine.
 */
import { AUTHOR_INSTALL_GROUP, authorInstall } from "./author-install/author-install.ts";
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { replaceGroups } from "./report/results-file.ts";

const log = new FigureLog();
await authorInstall(parseMode(process.argv.slice(2)), log);
process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
await replaceGroups([AUTHOR_INSTALL_GROUP], log.figures);
