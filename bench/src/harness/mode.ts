/** The run's mode: `--quick` (under a minute, smaller inputs) or full (under ten minutes). */

/** What every suite receives. */
export interface RunMode {
  readonly quick: boolean;
  /** Prints a progress line on stderr, so a long run shows where it is. */
  progress(message: string): void;
}

/** Parses the command line: `--quick` is the only flag. */
export function parseMode(argv: readonly string[]): RunMode {
  const unknown = argv.filter((arg) => arg !== "--quick");
  if (unknown.length > 0) throw new Error(`Unknown argument ${unknown.join(" ")}; usage: bun run bench [--quick]`);
  const started = performance.now();
  return {
    quick: argv.includes("--quick"),
    progress(message) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
      process.stderr.write(`[${seconds} s] ${message}\n`);
    },
  };
}
