/**
 * `bun src/render-report.ts`: renders BENCHMARKS.md again from `bench/results/latest.json`
 * without measuring anything, after a change to the report's texts.
 */
import { BENCHMARKS_PATH, writeBenchmarksMd } from "./report/benchmarks-md.ts";
import { readResults } from "./report/results-file.ts";

await writeBenchmarksMd(await readResults());
process.stderr.write(`wrote ${BENCHMARKS_PATH}\n`);
