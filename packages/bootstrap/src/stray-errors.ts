/**
 * What a plugin running in the app's own process (the sandbox off, or its entry
 * `"sandbox": false`) throws outside any call — from a timer or a promise it left behind — is
 * the plugin's bug, not the app's: the process ends with one message naming the plugin, exit 2,
 * as a bug inside a call ends a command. Told apart by the frame it was thrown at (`strayOwner`);
 * anything else ends the process as Bun would, with its own stack. A confined plugin's stray errors
 * end its host, which the app starts again for the next call.
 */
import { writeSync } from "node:fs";
import { dirname } from "node:path";
import type { App } from "./build-app.ts";

/** The exit code of a plugin's bug, inside a call or outside. */
const PLUGIN_BUG_EXIT = 2;

let watched: readonly { readonly name: string; readonly directory: string }[] = [];
let say: ((message: string, exitCode: number) => Promise<void>) | undefined;
let ending = false;

/**
 * From now on, an error thrown outside any call by one of `app`'s in-process plugins is `report`ed
 * (the person's message and the exit code, to write before the process ends) and ends the
 * process with that code, 2. For a process's entry, never a library: it listens on the process.
 */
export function endOnStrayPluginErrors(app: Pick<App, "plugins" | "sandbox">, report: (message: string, exitCode: number) => Promise<void>): void {
  const inProcess = app.plugins.filter((plugin) => !app.sandbox.confined.includes(plugin.name));
  // None in this process: nothing to tell apart, and the process's own handling stays as it is.
  if (inProcess.length === 0) return;
  watched = [...watched, ...inProcess];
  if (say === undefined) {
    process.on("uncaughtException", onStray);
    process.on("unhandledRejection", onStray);
  }
  say = report;
}

function onStray(error: unknown): void {
  if (ending) return;
  const plugin = strayOwner(error, watched, dirname(Bun.main));
  if (plugin === undefined || say === undefined) {
    // A write to a reader gone (a pipe closed): Bun drops it when nothing listens here, and so does this.
    if (error instanceof Error && Reflect.get(error, "code") === "EPIPE") return;
    // Ours (or no one's to tell): the process ends as Bun ends it, with the error's own stack
    // (thrown on from here, Bun would show this line instead of where it was thrown).
    writeSync(2, `${error instanceof Error ? (error.stack ?? String(error)) : String(error)}\n`);
    process.exit(1);
  }
  ending = true;
  const thrown = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const message = `plugin ${plugin.name} threw outside any call: ${thrown}\nThis is a bug in ${plugin.name}: report it to its author, or remove ${plugin.name} from the config.`;
  say(message, PLUGIN_BUG_EXIT).finally(() => process.exit(PLUGIN_BUG_EXIT));
}

/**
 * The plugin whose code threw `error`: the one whose folder holds the file of the stack's top
 * frame, where it was thrown, unless that file is the app's own code (`appCode`, the folder of
 * the program running: a plugin at "." may hold the app installed in its node_modules).
 * Undefined for an error without a stack to tell by.
 */
export function strayOwner<P extends { readonly directory: string }>(error: unknown, plugins: readonly P[], appCode: string): P | undefined {
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  const top = /^\s+at (?:.*\()?(\/[^():]+):\d+:\d+\)?$/m.exec(stack)?.[1];
  if (top === undefined || top.startsWith(`${appCode}/`)) return undefined;
  return plugins.find(({ directory }) => top.startsWith(`${directory}/`));
}
