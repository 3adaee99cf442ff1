/**
 * What running a stdio MCP server's program needs, wherever it lies (under HOME, in a
 * version manager's folder, in a temp-folder npm prefix): the file found on PATH and its real
 * path, the package or installation it belongs to, and for a `#!` script its interpreter and
 * its package's code. Nothing else of the folders they lie in.
 */
import { closeSync, existsSync, openSync, readSync, realpathSync } from "node:fs";
import { basename, dirname, join, relative, sep } from "node:path";
import { isWithin } from "./view/view.ts";

/** What running a program needs (see `programFiles`). */
export interface ProgramFiles {
  /** The program at the path found and its real path (the launcher keeps the links between), its interpreter, what it runs in its place. */
  readonly executables: string[];
  /** A script's folder, with its package's dependencies. */
  readonly code: string[];
  /** The package or installation the program belongs to, read-only whole (see `installationOf`). */
  readonly installations: string[];
}

/**
 * What running `program` needs, wherever it lies (under HOME, in a version manager's folder,
 * in a temp-folder npm prefix): the file found and its real path (with its dynamic loader,
 * which the launcher adds), the package or installation it belongs to, and for a script its
 * interpreter (`#!/usr/bin/env node` finds node on `PATH`) and the folder it lies in, with
 * that package's dependencies. Nothing else of the folders they lie in.
 */
export function programFiles(program: string, path: string, workspace: string): ProgramFiles {
  let real: string;
  try {
    real = realpathSync(program);
  } catch {
    // Not found: the server fails to start, and says so.
    return { executables: [], code: [], installations: [] };
  }
  const own = [...new Set([program, real])];
  const installations = installationOf(program, real);
  const interpreter = shebang(real);
  if (interpreter === undefined) return { executables: [...own, ...companions(real)], code: [], installations };
  const [command = "", first] = interpreter;
  const named = command.endsWith("/env") && first !== undefined ? (Bun.which(first, { PATH: path }) ?? first) : command;
  const inner = programFiles(named, path, workspace);
  // The kernel executes the `#!` line's program (`/usr/bin/env`) too.
  const launcher = named === command ? [] : programFiles(command, path, workspace).executables;
  return {
    executables: [...own, ...launcher, ...inner.executables],
    code: [...scriptCode(real, workspace), ...inner.code],
    installations: [...installations, ...inner.installations],
  };
}

/**
 * The package or installation a program belongs to: the npm package holding its real file,
 * found below the prefix it was found in (`<prefix>/bin/bun` → `<prefix>/lib/node_modules/bun`,
 * not the other global packages beside it), or a version manager's folder when the program is
 * one of its shims (`~/.pyenv/shims/python3` → `~/.pyenv`, which the shim runs from).
 */
function installationOf(program: string, real: string): string[] {
  const prefix = dirname(dirname(program));
  if (basename(dirname(real)) === "shims") return [dirname(dirname(real))];
  for (let folder = dirname(real); folder !== prefix && isWithin(folder, prefix) && folder !== dirname(folder); folder = dirname(folder)) {
    if (existsSync(join(folder, "package.json"))) return [folder];
  }
  return [];
}
/**
 * The folder whose package a script loads: none for a script in the workspace outside its
 * `node_modules`, whose package would be the workspace (or part of it), seen only per
 * `fs.read`; the script file itself stays readable as the program.
 */
function scriptCode(script: string, workspace: string): string[] {
  const folder = dirname(script);
  return !isWithin(folder, workspace) || relative(workspace, folder).split(sep).includes("node_modules") ? [folder] : [];
}

/** Programs a binary executes in its place: `uvx` is the `uv` beside it (`uv tool uvx …`), found beside its real path. */
function companions(real: string): string[] {
  const name = basename(real);
  if (!name.startsWith("uvx")) return [];
  const uv = join(dirname(real), `uv${name.slice("uvx".length)}`);
  return existsSync(uv) ? [uv] : [];
}

/** The interpreter and its first argument of a `#!` script, or undefined. */
function shebang(file: string): string[] | undefined {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(256);
    const length = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, length).toString("utf8");
    if (!text.startsWith("#!")) return undefined;
    return text.slice(2).split("\n")[0]?.trim().split(/\s+/).filter((part) => part !== "-S");
  } finally {
    closeSync(fd);
  }
}
