/**
 * The program a confined host runs: `bun host-program.ts SPEC`, or the one-file bundle of
 * it that program.ts keeps. Plugins the host loads import `@plugboard/core`: they are given
 * this program's own core (the one their manifest's contract range was checked against), so
 * a host loads core and TypeBox once, from the bundle, instead of again from their sources.
 * Not an API.
 */
import { sharePluginsCore } from "@plugboard/core/plugins-core";
import { runHost } from "./host-main.ts";

sharePluginsCore();

/**
 * The host's run, which ends only with the process (`runHost` exits): not awaited here, as
 * the bundle is CommonJS, for bytecode (program.ts), but by the confining step that runs this
 * program in its own process (confine-program.ts), whose entry module then stays unfinished.
 */
export const finished: Promise<never> = runHost(process.argv[2]);
