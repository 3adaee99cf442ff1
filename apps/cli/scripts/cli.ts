/**
 * The bundled CLI's program (`dist/cli.js`, built by `scripts/build.ts` as a CommonJS bundle
 * with its bytecode): the CLI's program with what only the bundle needs. Plugins loaded in
 * this process get the bundle's own core (`sharePluginsCore`). `bin.js` requires it and awaits
 * `finished`, as `bun src/main.ts` awaits the program: the same process either way.
 */
import { runCli } from "../src/program.ts";
import { sharePluginsCore } from "@plugboard/core/plugins-core";

sharePluginsCore();

/** The CLI's run: it ends the process itself (a CommonJS bundle has no top-level await, so the entry awaits this). */
export const finished: Promise<never> = runCli(process.argv.slice(2));
