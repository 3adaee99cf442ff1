/**
 * Where a hook's code is, and so where it runs: its arguments that name files resolved
 * against the config's folder, its program (the script an interpreter runs, else the
 * command itself), and the program's folder, which the hook runs in and which stays
 * read-only to confined plugins (hosts' protected paths) so nothing can be planted beside it.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, resolve } from "node:path";

/** Programs that run a script named by an argument (or run one that does: `env`, `npx`, `uv run`): the hook's code is that script. */
const INTERPRETER = /^(bun|bunx|node|nodejs|deno|tsx|ts-node|npx|pnpm|yarn|python[0-9.]*|pypy[0-9.]*|uv|uvx|sh|bash|dash|zsh|ksh|fish|ruby|perl|php|lua|env)$/;

/** A hook's command as it runs, its program, and the folder it runs in. */
export interface HookProgram {
  readonly command: readonly string[];
  /** Absent when the command names no file (a bare name not on PATH). */
  readonly program?: string;
  readonly cwd: string;
}

/**
 * Resolves `command` as the config in `folder` writes it: a program named by a path, and an
 * argument that names a file there or starts with `./` or `../`, become absolute. The program
 * is the first argument naming a file when `command[0]` is an interpreter (`bun`, `python3`,
 * `sh`, …), else `command[0]` (found on PATH for a bare name); the hook runs in its folder.
 *
 * @example hookProgram(["bun", "./hooks/check.ts"], "/app") // { command: ["bun", "/app/hooks/check.ts"], program: "/app/hooks/check.ts", cwd: "/app/hooks" }
 */
export function hookProgram(command: readonly string[], folder: string): HookProgram {
  const [first = "", ...args] = command;
  const head = first.includes("/") ? resolve(folder, first) : first;
  const resolved = [head, ...args.map((arg) => resolvedArgument(arg, folder))];
  const script = INTERPRETER.test(basename(head)) ? resolved.slice(1).find((arg) => isAbsolute(arg) && isFile(arg)) : undefined;
  const program = script ?? (head.includes("/") ? head : (Bun.which(head) ?? undefined));
  return { command: resolved, ...(program === undefined ? {} : { program }), cwd: program === undefined ? folder : dirname(program) };
}

function resolvedArgument(arg: string, folder: string): string {
  if (arg.startsWith("./") || arg.startsWith("../")) return resolve(folder, arg);
  if (arg === "" || arg.startsWith("-") || isAbsolute(arg)) return arg;
  const path = resolve(folder, arg);
  return isFile(path) ? path : arg;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}
