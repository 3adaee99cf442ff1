#!/usr/bin/env -S bun --no-env-file --config=/dev/null
/**
 * The `plugboard` command run from its sources (`bun src/main.ts`): the program is
 * `program.ts`, which the bundle runs too (scripts/cli.ts). Importing this file runs nothing.
 */
import { runCli } from "./program.ts";

export { main, runCli } from "./program.ts";

// Awaited, as the bundle's entry awaits it (scripts/bin.ts): runCli ends the process itself.
if (import.meta.main) await runCli();
