/** `bench/results/latest.json`: the environment and every figure of the last run. */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Figure } from "../harness/figures.ts";
import { BENCH_DIR } from "../harness/paths.ts";
import { writeBenchmarksMd } from "./benchmarks-md.ts";
import type { Environment } from "./environment.ts";

/** The file's content. */
export interface Results {
  readonly environment: Environment;
  readonly figures: readonly Figure[];
}

/** Where the last full run's results are written: the committed reference figures. */
export const RESULTS_PATH = join(BENCH_DIR, "results", "latest.json");

/** Where a quick run's results go instead (not committed), so it never replaces the full run's. */
export const QUICK_RESULTS_PATH = join(BENCH_DIR, "results", "quick.json");

/** Writes the results to `path` (through a temp file, so a crash never leaves half a file). */
export async function writeResults(results: Results, path: string = RESULTS_PATH): Promise<void> {
  await mkdir(join(BENCH_DIR, "results"), { recursive: true });
  const temp = `${path}.tmp`;
  await writeFile(temp, `${JSON.stringify(results, null, 2)}\n`);
  await rename(temp, path);
}

/** Reads the results back (the report is rendered from the file, not from memory). */
export async function readResults(path: string = RESULTS_PATH): Promise<Results> {
  return JSON.parse(await readFile(path, "utf8")) as Results;
}

/**
 * For a script that measures one suite again: its `figures` take the place of those of its
 * `groups` in the committed results, every other figure and the environment stay those of
 * the last full run, and BENCHMARKS.md is rendered again from the file.
 */
export async function replaceGroups(groups: readonly string[], figures: readonly Figure[]): Promise<void> {
  const results = await readResults();
  const others = results.figures.filter((figure) => !groups.includes(figure.group));
  await writeResults({ environment: results.environment, figures: [...others, ...figures] });
  await writeBenchmarksMd(await readResults());
}
