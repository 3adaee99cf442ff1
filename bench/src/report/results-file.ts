/** `bench/results/latest.json`: the environment and every figure of the last run. */
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Figure } from "../harness/figures.ts";
import { BENCH_DIR } from "../harness/paths.ts";
import type { Environment } from "./environment.ts";

/** The file's content. */
export interface Results {
  readonly environment: Environment;
  readonly figures: readonly Figure[];
}

/** Where the last run's results are written. */
export const RESULTS_PATH = join(BENCH_DIR, "results", "latest.json");

/** Writes the results (through a temp file, so a crash never leaves half a file). */
export async function writeResults(results: Results): Promise<void> {
  await mkdir(join(BENCH_DIR, "results"), { recursive: true });
  const temp = `${RESULTS_PATH}.tmp`;
  await writeFile(temp, `${JSON.stringify(results, null, 2)}\n`);
  await rename(temp, RESULTS_PATH);
}

/** Reads the results back (the report is rendered from the file, not from memory). */
export async function readResults(): Promise<Results> {
  return JSON.parse(await readFile(RESULTS_PATH, "utf8")) as Results;
}
