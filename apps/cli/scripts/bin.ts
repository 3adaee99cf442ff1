#!/usr/bin/env -S bun --no-env-file --config=/dev/null
/**
 * The entry of the bundled CLI (`dist/bin.js`, built by `scripts/build.ts`): the published
 * `plugboard` bin and what `bun run plugboard` starts. `--version` prints the line the build
 * put in it (`versionLine()`, as `PLUGBOARD_VERSION_LINE`) and loads nothing else, unless stdout
 * refuses it (then the program runs, and says why); any other command runs the bundle's
 * program, `cli.js` beside it (see cli.ts), read from its bytecode.
 * The CLI's sources know nothing of the bundle: `src/main.ts` is the same program from source.
 */

/** Defined by the build (scripts/build.ts); absent when this file runs from source. */
declare const PLUGBOARD_VERSION_LINE: string | undefined;

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v") && typeof PLUGBOARD_VERSION_LINE === "string") {
  // A write the system refuses (`> /dev/full`) falls through to the program, which says why as for any command.
  if (await Bun.write(Bun.stdout, `${PLUGBOARD_VERSION_LINE}\n`).then(() => true, () => false)) process.exit(0);
}
// Where the bundle is, for its modules' `import.meta.dir` and `.url` (scripts/build.ts, BUNDLE_GLOBALS).
const program = `${import.meta.dir}/cli.js`;
Object.defineProperty(globalThis, "PLUGBOARD_BUNDLE_DIR", { value: import.meta.dir });
Object.defineProperty(globalThis, "PLUGBOARD_BUNDLE_URL", { value: Bun.pathToFileURL(program).href });
// A path the build does not follow: cli.js is the bundle beside this file, built apart. Awaited
// as `bun src/main.ts` awaits the program: an error thrown meanwhile outside it is reported by
// Bun as it is there (written out, the process going on), not made fatal by an idle entry.
await (require(program) as { finished: Promise<never> }).finished;

// A module (top-level await) that exports nothing.
export {};
