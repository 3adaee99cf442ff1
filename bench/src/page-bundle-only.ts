/**
 * `bun run --cwd bench page-bundle`: measures only the web chat page's sizes and puts them in
 * place of the ones in `bench/results/latest.json`, then renders BENCHMARKS.md again. The
 * other figures and the run's environment stay those of the last full run.
 */
import { FigureLog } from "./harness/figures.ts";
import { parseMode } from "./harness/mode.ts";
import { PAGE_BUNDLE_GROUP, pageBundle } from "./page-bundle.ts";
import { replaceGroups } from "./report/results-file.ts";

const log = new FigureLog();
await pageBundle(parseMode(process.argv.slice(2)), log);
await replaceGroups([PAGE_BUNDLE_GROUP], log.figures);
