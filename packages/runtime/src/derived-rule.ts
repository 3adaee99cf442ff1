/**
 * The rule an approval offers for "always for commands like this": the leading words of the
 * line's first command the policy can read (`git log --oneline -5` → `git log *`): its
 * name, and a second word when that names a subcommand rather than an option or a path.
 */
import { ShellLines } from "./shell-lines.ts";

/** A derived rule's pattern and the command it was derived from. */
export interface DerivedCommandRule {
  /** The `command` pattern: `git log *`. */
  readonly pattern: string;
  /** The command of the line it came from, as rules match it: `git log --oneline -5`. */
  readonly command: string;
}

/**
 * The rule for commands like `line`'s first one; undefined when the line cannot be read or
 * its first command is not named in it. `lines` holds the call's lines read so far (`shell-lines.ts`).
 *
 * @example await deriveCommandRule("git log --oneline -5 | head") // { pattern: "git log *", command: "git log --oneline -5" }
 */
export async function deriveCommandRule(line: string, lines: ShellLines = new ShellLines()): Promise<DerivedCommandRule | undefined> {
  const reading = await lines.read(line);
  if (!reading.readable) return undefined;
  const first = reading.commands.find((command) => command.denyOnly !== true && command.unknown === undefined && command.caveats.length === 0);
  if (first === undefined) return undefined;
  const [name = "", second] = first.text.split(" ");
  const lead = second !== undefined && /^[a-z][a-z0-9-]*$/.test(second) ? `${name} ${second}` : name;
  return { pattern: `${lead} *`, command: first.text };
}
