/**
 * The CLI's words for what an in-process plugin throws outside any call (bootstrap's
 * `endOnStrayPluginErrors`): its note on stderr (and what the command asked to say then), and
 * for `run --json` its `error` event too, all written out before the process ends.
 */
import { type App, endOnStrayPluginErrors } from "@plugboard/bootstrap";
import type { Io } from "./io.ts";
import { jsonLine } from "./output.ts";

/** Notes a command asks to be said after the message when a plugin ends the process (the interactive session's "is kept" line). */
const lastWords: (() => string | undefined)[] = [];

/** Ends the CLI with one message when one of `app`'s in-process plugins throws outside a call. `json`: the command writes JSON events. */
export function reportStrayErrors(app: Pick<App, "plugins" | "sandbox">, io: Io, json: boolean): void {
  endOnStrayPluginErrors(app, async (message, exitCode) => {
    io.note(message);
    for (const words of lastWords) {
      const note = words();
      if (note !== undefined) io.note(note);
    }
    if (json) io.stdout.write(jsonLine({ type: "error", message, exit_code: exitCode }));
    await io.drain();
  });
}

/** Says `note()` (when it has something to say) after a plugin's message, if a plugin ends the process. */
export function sayWhenAPluginEndsIt(note: () => string | undefined): void {
  lastWords.push(note);
}
