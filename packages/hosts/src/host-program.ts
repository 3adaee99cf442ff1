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

// Not awaited at the top level: the bundle is CommonJS, for bytecode (program.ts).
void runHost(process.argv[2]);
