/**
 * Timing through mitata's `measure`: a fixed number of samples for slow work (loops,
 * processes, big files), mitata's own batching for micro-benchmarks. Results come back in
 * nanoseconds and become figures in the unit each group reports.
 */
import { measure } from "mitata";
import type { Figure, Spread } from "./figures.ts";

/** Median and spread of a measurement, in nanoseconds, with the samples themselves. */
export interface Timing {
  readonly p50: number;
  readonly spread: Spread;
  readonly samples: readonly number[];
}

/**
 * How many samples a slow measurement takes. mitata always makes one untimed call first;
 * `warmup` adds more untimed runs before it (for code the JIT should see hot).
 */
export interface SampleCount {
  readonly samples: number;
  readonly warmup?: number;
}

/** Times `run` exactly `samples` times. */
export async function timeRuns(run: () => unknown, { samples, warmup = 0 }: SampleCount): Promise<Timing> {
  for (let index = 0; index < warmup; index++) await run();
  const stats = await measure(run, exactly(samples));
  return timingOf(stats);
}

/**
 * Times `run(input)` where `input` comes from `setup`, which is not timed: each sample gets
 * a fresh input (a new server, a new model script).
 */
export async function timeRunsWithSetup<T>(
  setup: () => T | Promise<T>,
  run: (input: T) => unknown,
  { samples, warmup = 0 }: SampleCount,
): Promise<Timing> {
  for (let index = 0; index < warmup; index++) await run(await setup());
  // mitata's generator form: the function under `0` computes the first argument of `bench`
  // before each sample, outside the timed region.
  const benchmark = function* () {
    yield { 0: setup, bench: run };
  } as unknown as () => Generator<() => unknown>;
  const stats = await measure(benchmark, exactly(samples));
  return timingOf(stats);
}

/** mitata's options for exactly `samples` samples, each one run: slow work is never batched. */
function exactly(samples: number) {
  return { min_samples: samples, max_samples: samples, min_cpu_time: 0, warmup_samples: 0, batch_threshold: 0 };
}

/** Takes `samples` samples of one contender (a closure over `timeRuns` or `timeRunsWithSetup`). */
export type Sampler = (samples: number) => Promise<Timing>;

/**
 * Samples each contender in turn, `perRound` samples at a time, for `rounds` rounds, so
 * that a change in the machine's load during the measurement hits all of them alike.
 */
export async function timeInRounds(
  contenders: readonly Sampler[],
  { rounds, perRound }: { rounds: number; perRound: number },
): Promise<Timing[]> {
  const samples = contenders.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, sample] of contenders.entries()) samples[index]?.push(...(await sample(perRound)).samples);
  }
  return samples.map(summarize);
}

/** Times a fast function with mitata's batching, for at least `cpuMs` of samples. */
export async function timeFast(run: () => unknown, cpuMs: number): Promise<Timing> {
  return timingOf(await measure(run, { min_cpu_time: cpuMs * 1e6 }));
}

/** A figure from a timing, dividing nanoseconds by `scale` (1e3 for µs, 1e6 for ms, or per-step). */
export function timingFigure(group: string, name: string, timing: Timing, unit: string, scale: number, note?: string): Figure {
  const { spread } = timing;
  return {
    group,
    name,
    value: timing.p50 / scale,
    unit,
    spread: {
      p25: spread.p25 / scale,
      p75: spread.p75 / scale,
      min: spread.min / scale,
      max: spread.max / scale,
      samples: spread.samples,
    },
    ...(note ? { note } : {}),
  };
}

/** Median and spread of plain numbers (for values measured outside mitata, such as memory). */
export function summarize(values: readonly number[]): Timing {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] ?? Number.NaN;
  return {
    p50: median(sorted),
    spread: { p25: at(0.25), p75: at(0.75), min: at(0), max: at(1), samples: sorted.length },
    samples: sorted,
  };
}

function median(sorted: readonly number[]): number {
  const middle = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[middle] ?? Number.NaN;
  return ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

function timingOf(stats: { p25: number; p50: number; p75: number; min: number; max: number; samples: number[] }): Timing {
  return {
    p50: stats.p50,
    spread: { p25: stats.p25, p75: stats.p75, min: stats.min, max: stats.max, samples: stats.samples.length },
    samples: stats.samples,
  };
}
