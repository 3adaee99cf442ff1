/**
 * The `plugboard` the kit runs a plugin confined with: the kit depends on no part of the app
 * (its sandbox, its plugin hosts), so for what needs them it runs a `plugboard` it finds — the
 * one given (the `plugboard` option), else the executable `$PLUGBOARD_BIN` names, else
 * `node_modules/.bin/plugboard` in the plugin's folder or a folder above it, else `plugboard`
 * on PATH.
 */
import { accessSync, constants, statSync } from "node:fs";
import { dirname, join } from "node:path";

/** The variable that names a plugboard executable for the kit. */
export const PLUGBOARD_BIN = "PLUGBOARD_BIN";

/** A plugboard to run: its command line (the executable, then any arguments before the command's), and where it was found. */
export interface FoundPlugboard {
  readonly command: readonly string[];
  readonly from: string;
}

/** How to get a plugboard, said when none is found. */
export const GET_PLUGBOARD = `install the CLI (bun add -g @plugboard/cli, or bun add -d @plugboard/cli in the plugin's folder), or name a plugboard executable with ${PLUGBOARD_BIN}=PATH`;

/**
 * The plugboard for the plugin in `root`, or why there is none (a sentence ending with how to
 * get one). `given` is a path to the executable or a command line, such as
 * `[process.execPath, "/path/to/apps/cli/src/main.ts"]`.
 */
export function findPlugboard(root: string, given?: string | readonly string[], env: Readonly<Record<string, string | undefined>> = process.env): FoundPlugboard | string {
  if (given !== undefined) {
    const command = typeof given === "string" ? [given] : [...given];
    const [program] = command;
    if (program === undefined || program === "") return `the plugboard option names no command: ${GET_PLUGBOARD}`;
    return { command, from: "the plugboard option" };
  }
  const named = env[PLUGBOARD_BIN];
  if (named) return isExecutable(named) ? { command: [named], from: PLUGBOARD_BIN } : `${PLUGBOARD_BIN} names ${named}, which is not an executable file: ${GET_PLUGBOARD}`;
  for (let folder = root; ; folder = dirname(folder)) {
    const bin = join(folder, "node_modules", ".bin", "plugboard");
    if (isExecutable(bin)) return { command: [bin], from: bin };
    if (dirname(folder) === folder) break;
  }
  const onPath = Bun.which("plugboard", { PATH: env.PATH ?? "" });
  if (onPath) return { command: [onPath], from: onPath };
  return `no plugboard was found (none given, no ${PLUGBOARD_BIN}, none in node_modules/.bin at or above ${root}, none on PATH): ${GET_PLUGBOARD}`;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
