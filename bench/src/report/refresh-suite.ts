/**
 * The `bun run --cwd bench NAME` scripts that refresh one suite's committed figures: the suite
 * runs in full (a quick or partial run is refused, pointing at `bun run bench --quick --only`),
 * its table is printed, and its figures take the place of its groups' in
 * `bench/results/latest.json`, BENCHMARKS.md rendered again; the other figures stay those of
 * the last full run.
 */
import { loadavg } from "node:os";
import { FigureLog } from "../harness/figures.ts";
import { parseMode, type RunMode } from "../harness/mode.ts";
import { renderTable } from "../harness/table.ts";
import { replaceGroups } from "./results-file.ts";

/** One suite's refresh. */
export interface Refresh {
  /** The script's name: `bun run --cwd bench NAME`. */
  readonly name: string;
  /** The suite's name for `bun run bench --only`. @default name */
  readonly only?: string;
  /** The groups whose figures it replaces. */
  readonly groups: readonly string[];
  readonly suite: (mode: RunMode, log: FigureLog) => Promise<void>;
  /** Print the load average at the suite's start and end (a suite whose rows hold it need not). @default true */
  readonly load?: boolean;
}

/** Runs the suite in full and puts its figures in place of the committed ones. */
export async function refreshSuite({ name, only = name, groups, suite, load = true }: Refresh): Promise<void> {
  const mode = parseMode(process.argv.slice(2));
  if (mode.quick || mode.only) throw new Error(`bun run --cwd bench ${name} refreshes the committed figures, in full only; for a quick look: bun run bench --quick --only ${only}`);
  const average = () => loadavg().map((value) => value.toFixed(2)).join(" / ");
  const before = average();
  const log = new FigureLog();
  await suite(mode, log);
  if (load) mode.progress(`1 / 5 / 15-minute load average: ${before} at the start, ${average()} at the end`);
  process.stdout.write(`\n${renderTable(log.figures)}\n\n`);
  await replaceGroups(groups, log.figures);
}
