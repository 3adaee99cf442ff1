/**
 * Where and with what a hook runs: in its program's folder (which confined plugins cannot
 * write), with the app's environment less what runtimes read as code or as where to find code.
 * A hook runs unconfined; its program is protected, and what it loads must be too. A program
 * in the workspace's top folder, which cannot be protected whole, runs in an empty folder of
 * its own instead, and Python does not put that top folder on its path.
 */
import { realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Variables a runtime, a shell or the dynamic linker reads as code to run or as where code is found. */
const CODE_VARIABLES = new Set([
  // Node (and Bun, which reads NODE_OPTIONS and NODE_PATH too).
  "NODE_OPTIONS",
  "NODE_PATH",
  "NODE_REPL_EXTERNAL_MODULE",
  // Python.
  "PYTHONPATH",
  "PYTHONSTARTUP",
  "PYTHONHOME",
  "PYTHONUSERBASE",
  "PYTHONPLATLIBDIR",
  "PYTHONINSPECT",
  "PYTHONBREAKPOINT",
  "PYTHONWARNINGS",
  // Shells.
  "BASH_ENV",
  "ENV",
  "SHELLOPTS",
  "BASHOPTS",
  "PS4",
  "PROMPT_COMMAND",
  // Ruby, Perl.
  "RUBYOPT",
  "RUBYLIB",
  "PERL5OPT",
  "PERL5LIB",
  "PERLLIB",
  // The dynamic linker.
  "LD_PRELOAD",
  "LD_LIBRARY_PATH",
  "LD_AUDIT",
]);

/** Prefixes of such variables: Bun's configuration and preloads, bash's exported functions, macOS's linker. */
const CODE_PREFIXES = ["BUN_", "BASH_FUNC_", "DYLD_"];

/**
 * `env` without the variables runtimes read as code (`NODE_OPTIONS`, `BUN_*`, `PYTHONPATH`,
 * `PYTHONSTARTUP`, `BASH_ENV`, `LD_PRELOAD`, …).
 *
 * @example hookEnvironment({ PATH: "/bin", NODE_OPTIONS: "--require ./x.js" }) // { PATH: "/bin" }
 */
export function hookEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || CODE_VARIABLES.has(name) || CODE_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    kept[name] = value;
  }
  return kept;
}

/** The folder and environment of one run of a hook; `release` removes what was made for it. */
export interface HookPlace {
  readonly cwd: string;
  readonly env: Record<string, string>;
  release(): Promise<void>;
}

/**
 * Where a hook whose folder is `folder` runs for a call in `workspace`: its folder, unless that
 * is the workspace's top folder, where a plugin could plant what the runtime loads from the
 * folder it starts in (`bunfig.toml`, `.env.local`) or beside the script (`json.py`): then a
 * new empty folder (removed after), with `PYTHONSAFEPATH` set.
 *
 * @example const place = await hookPlace(hook.cwd, call.workspace, process.env)
 */
export async function hookPlace(folder: string, workspace: string, env: Readonly<Record<string, string | undefined>>): Promise<HookPlace> {
  const cleaned = hookEnvironment(env);
  if (!sameFolder(folder, workspace)) return { cwd: folder, env: cleaned, release: async () => {} };
  const empty = await mkdtemp(join(tmpdir(), "plugboard-hook-"));
  return { cwd: empty, env: { ...cleaned, PYTHONSAFEPATH: "1" }, release: () => rm(empty, { recursive: true, force: true }) };
}

function sameFolder(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return a === b;
  }
}
