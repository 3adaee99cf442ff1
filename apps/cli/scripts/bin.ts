#!/usr/bin/env -S bun --no-env-file --config=/dev/null
/**
 * The entry of the bundled CLI (`dist/bin.js`, built by `scripts/build.ts`): the published
 * `plugboard` bin and what `bun run plugboard` starts. It holds what only the bundle needs
 * (its version line, its core for the plugins it loads), so the CLI's sources know nothing
 * of the bundle: `src/main.ts` is the same program from source, run only when started
 * directly, so it can also be imported.
 *
 * Nothing is imported before it is needed: `--version` prints the line the build put in
 * the bundle (`versionLine()`, as `PLUGBOARD_VERSION_LINE`) and loads nothing else.
 */

/** Defined by the build (scripts/build.ts); absent when this file runs from source. */
declare const PLUGBOARD_VERSION_LINE: string | undefined;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v") && typeof PLUGBOARD_VERSION_LINE === "string") {
  console.log(PLUGBOARD_VERSION_LINE);
  process.exit(0);
}

// Plugins loaded in this process get the bundle's core (bundled-core.ts).
(await import("./bundled-core.ts")).useBundledCore();

const { runCli } = await import("../src/main.ts");
await runCli(argv);

// A module (top-level await) that exports nothing.
export {};
