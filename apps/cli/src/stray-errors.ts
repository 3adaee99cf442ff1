/**
 * The CLI's words for what an in-process plugin throws outside any call (bootstrap's
 * `endOnStrayPluginErrors`): its note on stderr, and for `run --json` its `error` event too,
 * both written out before the process ends.
 */
import { type App, endOnStrayPluginErrors } from "@plugboard/bootstrap";
import type { Io } from "./io.ts";
import { jsonLine } from "./output.ts";

/** Ends the CLI with one message when one of `app`'s in-process plugins throws outside a call. `json`: the command writes JSON events. */
export function reportStrayErrors(app: Pick<App, "plugins" | "sandbox">, io: Io, json: boolean): void {
  endOnStrayPluginErrors(app, async (message, exitCode) => {
    io.note(message);
    if (json) io.stdout.write(jsonLine({ type: "error", message, exit_code: exitCode }));
    await io.drain();
  });
}
