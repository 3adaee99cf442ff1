/**
 * What a command is: its spec, which the parser checks a command line against and `--help`
 * shows, and `run`, which runs its handler. The handler's module is imported only when the
 * command runs, so reading every spec (the parser, `plugboard --help`) loads no command's code.
 */
import { trace } from "@plugboard/core/trace";
import { lazily } from "@plugboard/core/internal";
import type { ParsedArgs } from "../args.ts";
import type { FlagName } from "../flags.ts";
import type { Io } from "../io.ts";

export interface CommandSpec<Name extends string = string> {
  /** `interactive` is what a bare `plugboard` runs; `plugin …` commands are two words. */
  readonly name: Name;
  readonly usage: string;
  readonly summary: string;
  /** Longer explanation shown by `--help`. */
  readonly details: readonly string[];
  readonly flags: readonly FlagName[];
  /** What `--json` does for this command, when it accepts it. */
  readonly json?: string;
  /** What a flag means for this command, where that differs from its general help. */
  readonly flagHelp?: Partial<Record<FlagName, string>>;
  /** How many arguments follow the command name. */
  readonly args: { readonly min: number; readonly max: number };
}

/** Runs a command with its parsed command line; returns the exit code. */
export type Handler = (parsed: ParsedArgs, io: Io) => Promise<number>;

export interface Command<Name extends string = string> {
  readonly spec: CommandSpec<Name>;
  readonly run: Handler;
}

/**
 * The command of `spec`, whose handler `load` imports when it runs (a module that cannot be
 * loaded is a `LazyLoadError` naming the command); once the handler has run, the apps it
 * opened are closed. Infers the command's name as a literal.
 *
 * @example export default defineCommand({ name: "tools", … }, async () => (await import("./tools.ts")).toolsCommand);
 */
export function defineCommand<const Name extends string>(spec: CommandSpec<Name>, load: () => Promise<Handler>): Command<Name> {
  const run: Handler = async (parsed, io) => {
    const handler = await lazily(`the plugboard ${spec.name} command`, load);
    trace("cli: command loaded");
    try {
      return await handler(parsed, io);
    } finally {
      // The MCP servers and plugin hosts its apps started end as the CLI is about to exit.
      const { closeApps } = await lazily("the CLI's app loader", () => import("../load-app.ts"));
      await closeApps();
      trace("cli: apps closed");
    }
  };
  return { spec, run };
}
