/**
 * Where a command's processes live: a PID namespace of their own when `unshare` can make
 * one, whose first process is our init (`init.ts`) and the command its child. The kernel
 * kills every process of the namespace — daemons, `setsid`, double forks, `nohup` included —
 * when the init ends, and the init ends with the command. Without a namespace, only the
 * command's process group can be killed.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { findUnshare, unshareFlags, whyUnshareFails } from "./unshare.ts";

/** A PID namespace whose first process dies with `unshare` itself. */
const PID_NAMESPACE = unshareFlags({ pid: true });
/** The same, for a user without privileges: a user namespace mapping them to themselves. */
const PID_NAMESPACE_AS_USER = unshareFlags({ user: "self", pid: true });

/**
 * Bun's flags for the init: it must not load the `.env` or `bunfig.toml` of the folder the
 * command runs in (their variables would reach the command; a preload would run first).
 */
const INIT_FLAGS = ["--no-env-file", "--config=/dev/null"];
let folder: string | undefined;

/**
 * Core's package folder, where the init's source is. Found through the package's name rather
 * than this file's place, so that an app bundling this module (the CLI's dist/cli.js) still
 * runs the init from the package's sources; and found when first asked, not when this module
 * is loaded: a confined host's program gives its plugins its own copy of this module
 * (`sharePluginsCore`), where no namespace can be made and the init is never run, and where
 * the folder its bundle was built in may not be there at all.
 */
export function coreFolder(): string {
  folder ??= dirname(Bun.resolveSync("@plugboard/core/package.json", import.meta.dir));
  return folder;
}

/**
 * Set (`1`) by Plugboard's sandbox in the environment of every process it confines: there no
 * namespace can be made (the seccomp filter refuses new user namespaces, and the process holds
 * no capability, which a PID namespace of its own needs), so the probe, two runs of `unshare`
 * that would fail, is not made. Believed only where the kernel agrees (`confinedByKernel`): in
 * any other process the variable alone never takes the namespace away.
 */
export const CONFINED_VARIABLE = "PLUGBOARD_CONFINED";

let prefix: readonly string[] | undefined;

/**
 * The argv prefix that runs a program in a PID namespace of its own — plain first (a mapped
 * root in a confined host may not create user namespaces), else with a user namespace — or
 * `[]` where none can be made. Probed once per process (a few milliseconds, on first use),
 * except in a process Plugboard's sandbox confines (`CONFINED_VARIABLE`), where none can be.
 */
export function pidNamespacePrefix(): readonly string[] {
  prefix ??= probe();
  return prefix;
}

/**
 * The command line that runs `argv` as the child of our init, to follow
 * `pidNamespacePrefix()`; spawn it with a pipe as fd 3 and `readEnding` that.
 *
 * @example Bun.spawn([...pidNamespacePrefix(), ...underInit(["bash", "-c", "kill $$"])], { stdio: ["ignore", "pipe", "pipe", "pipe"] })
 */
export function underInit(argv: readonly string[]): string[] {
  return [process.execPath, ...INIT_FLAGS, join(coreFolder(), "src/process/init.ts"), ...argv];
}

function probe(): readonly string[] {
  if (process.env[CONFINED_VARIABLE] === "1" && confinedByKernel()) return [];
  const unshare = findUnshare();
  if (unshare === null) return [];
  const flags = [PID_NAMESPACE, PID_NAMESPACE_AS_USER].find((candidate) => whyUnshareFails(unshare, candidate) === null);
  return flags === undefined ? [] : [unshare, ...flags];
}

/**
 * Whether this process is held as the sandbox holds what it confines: `no_new_privs` set and a
 * seccomp filter installed (`/proc/self/status`). Neither can be undone, and a shell the person
 * starts has neither; where the file cannot be read, no.
 */
function confinedByKernel(): boolean {
  try {
    const status = readFileSync("/proc/self/status", "utf8");
    return /^NoNewPrivs:\s*1$/m.test(status) && /^Seccomp:\s*2$/m.test(status);
  } catch {
    return false;
  }
}
