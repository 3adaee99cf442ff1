/**
 * The file operations the sandbox suite times, run confined or not by its parent:
 * `bun file-operations-child.ts FILE ITERATIONS SAMPLES` times `ITERATIONS` calls of each
 * operation on `FILE`, `SAMPLES` times (the operations taken in turn), and prints the time
 * per call of each sample, in nanoseconds, as JSON.
 */
import { readFileSync, statSync } from "node:fs";

const [file = "", iterationsText = "10000", samplesText = "5"] = process.argv.slice(2);
const iterations = Number(iterationsText);
const samples = Number(samplesText);

/** Each operation's loop: the synchronous ones without an `await` per call. */
const OPERATIONS: Record<string, () => Promise<void> | void> = {
  statSync: () => {
    for (let index = 0; index < iterations; index++) statSync(file);
  },
  readFileSync: () => {
    for (let index = 0; index < iterations; index++) readFileSync(file, "utf8");
  },
  "Bun.file().text()": async () => {
    for (let index = 0; index < iterations; index++) await Bun.file(file).text();
  },
};

const results: Record<string, number[]> = Object.fromEntries(Object.keys(OPERATIONS).map((name) => [name, []]));
// One untimed round first, so the timed ones run hot code.
for (let sample = -1; sample < samples; sample++) {
  for (const [name, loop] of Object.entries(OPERATIONS)) {
    const started = Bun.nanoseconds();
    await loop();
    if (sample >= 0) results[name]?.push((Bun.nanoseconds() - started) / iterations);
  }
}
process.stdout.write(`${JSON.stringify(results)}\n`);
