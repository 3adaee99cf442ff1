/** The run's mode: `--quick` (a few minutes, smaller inputs) or full (under ten minutes). */

/** What every suite receives. */
export interface RunMode {
  readonly quick: boolean;
  /** The suites to run (`--only a,b`); undefined runs them all. */
  readonly only: readonly string[] | undefined;
  /** Prints a progress line on stderr, so a long run shows where it is. */
  progress(message: string): void;
}

const USAGE = "usage: bun run bench [--quick] [--only SUITE,SUITE…]";

/** Parses the command line: `--quick` and `--only SUITES`. */
export function parseMode(argv: readonly string[]): RunMode {
  let quick = false;
  let only: string[] | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index];
    if (arg === "--quick") quick = true;
    else if (arg === "--only" && argv[index + 1] !== undefined) only = String(argv[++index]).split(",");
    else throw new Error(`Unknown argument ${arg}; ${USAGE}`);
  }
  const started = performance.now();
  return {
    quick,
    only,
    progress(message) {
      const seconds = ((performance.now() - started) / 1000).toFixed(1).padStart(6);
      process.stderr.write(`[${seconds} s] ${message}\n`);
    },
  };
}
