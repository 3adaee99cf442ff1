#!/usr/bin/env -S bun --no-env-file --config=/dev/null
/**
 * The `plugboard` command: parse the command line, dispatch to a command (the list is
 * `commands/index.ts`; each command imports its code only when it runs), turn the outcome
 * into an exit code. Person-facing failures (`PlugboardError`) print their message, and so
 * do a bug in a plugin's code (`PluginError`, exit 2) and a part of Plugboard that is not
 * installed (a `LazyLoadError` whose module cannot be found, exit 2); anything else is a bug
 * of ours and crashes with its stack.
 */
import { PlugboardError } from "@plugboard/errors";
import { LazyLoadError, lazily } from "@plugboard/core/internal";
import { trace } from "@plugboard/core/trace";
import { parseCliArgs } from "./args.ts";
import { commandOf } from "./commands/index.ts";
import { helpText } from "./help.ts";
import { type Io, processIo } from "./io.ts";

/** Exit codes for person-facing failures: 3 for the model endpoint, 2 for everything else. */
const MODEL_CODES = new Set(["MODEL_ENDPOINT"]);

/**
 * Runs the CLI with `argv` (the arguments after the script) and returns the exit code.
 *
 * @example process.exitCode = await main(["tools", "--json"]);
 */
export async function main(argv: readonly string[], io: Io = processIo()): Promise<number> {
  try {
    const parsed = parseCliArgs(argv);
    if (parsed.version) {
      // Imported only here: the contract version is core's, and core is heavy to load.
      const { versionLine } = await lazily("plugboard's version line", () => import("./version.ts"));
      await io.print(`${versionLine()}\n`);
      return 0;
    }
    if (parsed.help) {
      await io.print(`${helpText(parsed.group ?? parsed.command)}\n`);
      return 0;
    }
    return await commandOf(parsed.command).run(parsed, io);
  } catch (error) {
    if (error instanceof PlugboardError) {
      io.note(error.message);
      return MODEL_CODES.has(error.code) ? 3 : 2;
    }
    if (error instanceof LazyLoadError && isNotFound(error.cause)) {
      // A file of ours or a dependency is missing: the fix is the installation, not the command line.
      const why = error.message.split("\n")[0] ?? "";
      io.note(`${why}.\nReinstall plugboard (bun add -g @plugboard/cli) so that all its files and dependencies are installed.`);
      return 2;
    }
    // A bug in a plugin's code (wherever the plugin runs): the person's fix is the plugin's author, or the config.
    const { PluginError } = await lazily("the runtime @plugboard/core/internal", () => import("@plugboard/core/internal"));
    if (!(error instanceof PluginError)) throw error;
    const who = error.plugin ?? "the plugin";
    io.note(`${error.message}\nThis is a bug in ${who}, not in the call: report it to its author, or remove ${who} from the config.`);
    return 2;
  }
}

/** Whether a module failed to load because it could not be found (Bun's resolution error, `import` or `require`). */
function isNotFound(error: unknown): boolean {
  const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}

/**
 * Runs the CLI as the process: the command line, the real streams, the exit code. Output is
 * drained before the process exits, so piped output is never cut.
 */
export async function runCli(argv: readonly string[] = process.argv.slice(2)): Promise<never> {
  trace("cli: started");
  const io = processIo();
  const code = await main(argv, io);
  await io.drain();
  trace("cli: exit");
  process.exit(code);
}

if (import.meta.main) await runCli();
