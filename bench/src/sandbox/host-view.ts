/**
 * The confinement of a read_file plugin host, as `@plugboard/hosts` asks for it when it runs
 * its program from the sources: grants `["fs.read"]`, the plugin's folder and the hosts
 * package's as code, the plugin's folder as the current one. The suite runs its own programs
 * under this same view.
 */
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
// The sources the bootstrap loads (one module instance): the bench package does not declare @plugboard/sandbox.
import { type ConfinedCommand, confineCommand, detectMechanism, type Limits, type Mechanism } from "../../../packages/sandbox/src/index.ts";
import { RULES_VARIABLE } from "../../../packages/sandbox/src/kernel/landlock.ts";

/** The read-file plugin's folder. */
const READ_FILE_PLUGIN = fileURLToPath(new URL("../../../plugins/read-file", import.meta.url));
const HOSTS_FOLDER = dirname(Bun.resolveSync("@plugboard/hosts/package.json", dirname(Bun.resolveSync("@plugboard/bootstrap/package.json", import.meta.dir))));

/** This machine's mechanism; throws when there is none (the suite measures confinement). */
export function availableMechanism(): Extract<Mechanism, { available: true }> {
  const mechanism = detectMechanism();
  if (!mechanism.available) throw new Error(`the sandbox is not available here: ${mechanism.missing}`);
  return mechanism;
}

/** `argv` confined as read_file's host is, in `workspace` (with `limits`: its cgroups made, to remove with `limits.remove()`). */
export function confineAsReadFileHost(mechanism: Extract<Mechanism, { available: true }>, workspace: string, argv: readonly string[], limits?: Limits): ConfinedCommand {
  return confineCommand(mechanism, {
    argv,
    grants: ["fs.read"],
    workspace,
    code: [READ_FILE_PLUGIN, HOSTS_FOLDER],
    cwd: READ_FILE_PLUGIN,
    ...(limits === undefined ? {} : { limits }),
  });
}

/** The confined environment without the rules: what an unconfined run of the same program gets, so only the confinement differs. */
export function plainEnv(confined: ConfinedCommand): Record<string, string> {
  const { [RULES_VARIABLE]: _rules, ...env } = confined.env;
  return env;
}

/** How many mounts the view of `confined` has. */
export function viewMounts(confined: ConfinedCommand): number {
  const rules = JSON.parse(confined.env[RULES_VARIABLE] ?? "{}") as { view?: { mounts?: unknown[] } };
  return rules.view?.mounts?.length ?? Number.NaN;
}
