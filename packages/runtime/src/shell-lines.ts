/**
 * The bash lines of one call, each read once: the policy's verdict, the rule an approval
 * offers and the session's remembered rules all judge the same reading of a line. A line a
 * before hook rewrote is a new line, read when it is first judged. The parser is loaded on
 * the first read (`lazily`): a call whose line no rule reads never loads it.
 */
import { lazily } from "@plugboard/core/internal";
import type { ShellReading } from "./shell-commands.ts";

/** One call's readings, by line. */
export class ShellLines {
  readonly #readings = new Map<string, Promise<ShellReading>>();

  /** `line` read into its simple commands (`shell-commands.ts`): parsed on the first ask, remembered after. */
  read(line: string): Promise<ShellReading> {
    let reading = this.#readings.get(line);
    if (reading === undefined) {
      reading = lazily("the shell parser (web-tree-sitter)", () => import("./shell-commands.ts")).then(({ readCommandLine }) => readCommandLine(line));
      this.#readings.set(line, reading);
    }
    return reading;
  }
}
