/** What the figures were measured on: machine, load, Bun and the measured packages' versions. */
import { readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem, type } from "node:os";
import { join } from "node:path";
import { BENCH_DIR } from "../harness/paths.ts";

/** The run's environment, as written to latest.json and BENCHMARKS.md. */
export interface Environment {
  readonly date: string;
  readonly mode: "quick" | "full";
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly bun: string;
  /** 1-, 5- and 15-minute load averages when the run started and when its timings ended (before the test suite, which loads the machine itself). */
  readonly loadAtStart: readonly number[];
  readonly loadAtEnd: readonly number[];
  readonly durationSeconds: number;
  /** Versions of the packages measured or measured against. */
  readonly packages: Readonly<Record<string, string>>;
}

const PACKAGES = ["openai", "ai", "@ai-sdk/openai-compatible", "@openai/agents", "zod", "@sinclair/typebox", "valibot", "fast-glob", "mitata"];

/**
 * Takes the load now; call `timingsEnded` before a suite that loads the machine by design (the
 * test suite), and `finish` at the end of the run for the rest.
 */
export function startEnvironment(quick: boolean): { readonly loadAtStart: readonly number[]; timingsEnded(): void; finish(): Environment } {
  const started = performance.now();
  const loadAtStart = loadavg();
  const date = new Date().toISOString();
  let loadAtEnd: readonly number[] | undefined;
  return {
    loadAtStart,
    timingsEnded: () => {
      loadAtEnd ??= loadavg();
    },
    finish: () => ({
      date,
      mode: quick ? "quick" : "full",
      cpu: cpus()[0]?.model.trim() ?? "unknown",
      cores: cpus().length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      os: `${type()} ${release()}`,
      bun: `${Bun.version} (${Bun.revision.slice(0, 9)})`,
      loadAtStart,
      loadAtEnd: loadAtEnd ?? loadavg(),
      durationSeconds: Math.round((performance.now() - started) / 1000),
      packages: Object.fromEntries(PACKAGES.map((name) => [name, versionOf(name)])),
    }),
  };
}

function versionOf(name: string): string {
  try {
    const json = JSON.parse(readFileSync(join(BENCH_DIR, "node_modules", name, "package.json"), "utf8")) as { version?: string };
    return json.version ?? "unknown";
  } catch {
    return "unknown";
  }
}
