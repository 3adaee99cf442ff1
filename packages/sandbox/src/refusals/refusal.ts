/**
 * What the sandbox answers to an operation a plugin's grants do not cover, told apart from a
 * plugin's bug: a handler that lets such an error escape gets an `Error:` result saying what
 * was refused (the model can act on it; the grant that would allow it is added by
 * refusal-hint.ts in the app), where any other error it throws is a `PluginError`.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { isWithin } from "../view/view.ts";

/**
 * Operating-system refusals. Without `network` the host's empty network namespace also
 * answers a connection with an unreachable network or a refused connection; with it, those
 * are the peer's answers.
 */
const REFUSALS = ["EACCES", "EPERM", "EROFS"];
const NETWORK_REFUSALS = ["ENETUNREACH", "ECONNREFUSED"];
/** A path outside the workspace is not in a host's view at all: it reads as missing. */
const OUTSIDE_REFUSALS = ["ENOENT", "ENOTDIR"];

/** The refusal text for `error` thrown by a handler of `plugin` (granted `grants`), or undefined when it is not the sandbox's. */
export function refusalOf(error: unknown, plugin: string, grants: readonly string[], workspace: string): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = Reflect.get(error, "code");
  if (typeof code !== "string") return undefined;
  const granted = grants.length === 0 ? "no permissions" : grants.join(", ");
  const refusals = grants.includes("network") ? REFUSALS : [...REFUSALS, ...NETWORK_REFUSALS];
  if (refusals.includes(code)) return `Refused by the sandbox (${plugin} is granted ${granted}): ${error.message}`;
  const path = Reflect.get(error, "path");
  if (OUTSIDE_REFUSALS.includes(code) && typeof path === "string" && leavesWorkspace(path, workspace)) {
    return `Refused by the sandbox (${plugin} is granted ${granted}): ${error.message} (outside the workspace a plugin sees only its own code, the system's files and private temporary folders)`;
  }
  return undefined;
}

/** Whether `given` lies outside `workspace`, itself or through a link in it that leads out. */
function leavesWorkspace(given: string, workspace: string): boolean {
  // A relative path in an error is the host's current folder's (the plugin's), not the workspace's.
  const path = resolve(given);
  if (!isWithin(path, workspace)) return true;
  for (let at = path; at !== workspace && isWithin(at, workspace); at = dirname(at)) {
    try {
      if (lstatSync(at).isSymbolicLink() && !isWithin(resolve(dirname(at), readlinkSync(at)), workspace)) return true;
    } catch {
      // Not there: look further up.
    }
  }
  return false;
}
