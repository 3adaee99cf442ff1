/**
 * The `plugboard` program: parse the command line, dispatch to a command (the list is
 * `commands/index.ts`; each command imports its code only when it runs), turn the outcome
 * into an exit code. A failure a person acts on prints its message (`failure.ts`); anything
 * else is a bug of ours and crashes with its stack.
 */
import { lazily } from "@plugboard/core/internal";
import { trace } from "@plugboard/core/trace";
import { parseCliArgs, wantsErrorEvent } from "./args.ts";
import { commandOf } from "./commands/index.ts";
import { failureOf } from "./failure.ts";
import { helpText } from "./help.ts";
import { type Io, processIo } from "./io.ts";
import { jsonLine } from "./output.ts";

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
    const failure = await failureOf(error);
    io.note(failure.message);
    // `run --json` ends with an `error` event on any failure, its command line's too.
    if (wantsErrorEvent(error, argv)) io.stdout.write(jsonLine({ type: "error", message: failure.message, exit_code: failure.code }));
    return failure.code;
  }
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
