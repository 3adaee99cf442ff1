/**
 * The rule an approval offers for "always for commands like this", from the line's first
 * command the policy can read (`command-shapes.ts` says what its words mean):
 * - a program with subcommands: `NAME SUB *` (`git log --oneline -5` → `git log *`);
 * - an interpreter: the script it runs (`python build.py -v` → `python build.py *`);
 * - any other program: `NAME *` (`echo hi` → `echo *`), which also matches `NAME` alone;
 * - a destructive command (`rm -rf build`, `git push --force`), or a program above without
 *   its subcommand or script (`git -C x log`, `python -c …`): the exact command, and nothing
 *   when its text holds a wildcard character (`rm *.o` as a pattern would match every `rm`).
 */
import { isDestructive, runsScript, takesSubcommand } from "./command-shapes.ts";
import { ShellLines } from "./shell-lines.ts";

/** A derived rule's pattern and the command it was derived from. */
export interface DerivedCommandRule {
  /** The `command` pattern: `git log *`, or the exact command (`rm -rf build`). */
  readonly pattern: string;
  /** The command of the line it came from, as rules match it: `git log --oneline -5`. */
  readonly command: string;
}

/** The characters a pattern reads as wildcards. */
const WILDCARD = /[*?]/;
/** A subcommand: a plain word, not an option, a path or a value. */
const SUBCOMMAND = /^[a-z][a-z0-9-]*$/;
/** A script an interpreter runs: a path, not an option. */
const SCRIPT = /^[\w./-]+$/;

/**
 * The rule for commands like `line`'s first one; undefined when the line cannot be read, its
 * first command is not named in it, or only an exact rule would fit and the command's text
 * holds `*` or `?`. `lines` holds the call's lines read so far (`shell-lines.ts`).
 *
 * @example await deriveCommandRule("git log --oneline -5 | head") // { pattern: "git log *", command: "git log --oneline -5" }
 * @example await deriveCommandRule("rm -rf build") // { pattern: "rm -rf build", command: "rm -rf build" }
 */
export async function deriveCommandRule(line: string, lines: ShellLines = new ShellLines()): Promise<DerivedCommandRule | undefined> {
  const reading = await lines.read(line);
  if (!reading.readable) return undefined;
  const first = reading.commands.find((command) => command.denyOnly !== true && command.unknown === undefined && command.caveats.length === 0);
  if (first === undefined) return undefined;
  const pattern = patternFor(first.text);
  return pattern === undefined ? undefined : { pattern, command: first.text };
}

function patternFor(command: string): string | undefined {
  const words = command.split(" ");
  const [name = "", second = ""] = words;
  const exact = WILDCARD.test(command) ? undefined : command;
  if (isDestructive(words)) return exact;
  if (WILDCARD.test(name)) return undefined;
  if (takesSubcommand(name)) return SUBCOMMAND.test(second) ? `${name} ${second} *` : exact;
  if (runsScript(name)) return SCRIPT.test(second) && !second.startsWith("-") ? `${name} ${second} *` : exact;
  return `${name} *`;
}
