/**
 * `bun run --cwd bench one-shot`: measures only the one-shot suite (one confined command
 * against Codex's and Anthropic's sandboxes, and Plugboard's stages), in full, and puts its
 * figures in place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md
 * again. The other figures stay those of the last full run; the load during this run is in
 * its rows. A quick look that leaves the committed figures alone:
 * `bun run bench --quick --only one-shot`.
 */
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { renderTable } from "./harness/table.ts";
import { ONE_SHOT_GROUPS } from "./one-shot/groups.ts";
import { oneShot } from "./one-shot/one-shot.ts";
import { replaceGroups } from "./report/results-file.ts";

const mode = parseMode(process.argv.slice(2));
if (mode.quick || mode.only) throw new Error("bun run --cwd bench one-shot refreshes the committed figures, in full only; for a quick look: bun run bench --quick --only one-shot");
const log = new FigureLog();
await oneShot(mode, log);
process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
await replaceGroups(ONE_SHOT_GROUPS, log.figures);
