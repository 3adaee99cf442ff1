/**
 * What a plugin running in this process (the sandbox off, or its entry `"sandbox": false`)
 * throws outside any call — from a timer or a promise it left behind — is the plugin's bug, not
 * ours: one message naming it, exit 2, as a bug inside a call is (`failure.ts`). Told apart by
 * the plugin's folder in the error's stack; anything else is thrown on, to crash with its stack.
 */
import type { StartedApp } from "@plugboard/bootstrap";
import type { Io } from "./io.ts";
import { jsonLine } from "./output.ts";

/** The exit code of a plugin's bug, inside a call or outside. */
const PLUGIN_BUG_EXIT = 2;

let watched: ReadonlySet<{ readonly name: string; readonly directory: string }> = new Set();
let listening = false;
let ending = false;

/**
 * Names the in-process plugins of `app` as the ones whose stray errors end the process with
 * their message. `json`: the command writes JSON events (`run --json`), so the message is also
 * its `error` event on stdout.
 */
export function reportStrayErrors(app: StartedApp, io: Io, json: boolean): void {
  const inProcess = app.plugins.filter((plugin) => !app.sandbox.confined.includes(plugin.name));
  watched = new Set([...watched, ...inProcess]);
  if (listening || inProcess.length === 0) return;
  listening = true;
  const onStray = (error: unknown) => {
    if (ending) return;
    const stack = error instanceof Error ? (error.stack ?? "") : "";
    const plugin = [...watched].find(({ directory }) => stack.includes(`${directory}/`));
    if (plugin === undefined) throw error;
    const thrown = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const message = `plugin ${plugin.name} threw outside any call: ${thrown}\nThis is a bug in ${plugin.name}: report it to its author, or remove ${plugin.name} from the config.`;
    ending = true;
    io.note(message);
    if (json) io.stdout.write(jsonLine({ type: "error", message, exit_code: PLUGIN_BUG_EXIT }));
    // Out before the exit: a pipe's reader gets the whole message.
    const written = [io.stderr, io.stdout].map((stream) => new Promise((done) => stream.write("", done)));
    void Promise.all(written).then(() => process.exit(PLUGIN_BUG_EXIT));
  };
  process.on("uncaughtException", onStray);
  process.on("unhandledRejection", onStray);
}
