/**
 * The confining step of the host about to be called, started ahead (the hosts' ahead.ts):
 * when a call is about to come (`warm`), as the plan begins, while the workspace is opened,
 * the plugins are found and the namespace probe runs. Only where it can serve: the sandbox not
 * off, the app's own confining program shipped (`hostPrograms`), and a plugin of the config
 * confined without the network (a step started now has no network, as most hosts).
 */
import { realpathSync, statSync } from "node:fs";
import type { AppConfig, PluginEntry } from "@plugboard/config";
import { lazilySync } from "@plugboard/core/internal";
import { refusedBySystem } from "@plugboard/core/process";
import type { HostAhead } from "@plugboard/hosts/ahead";
import { sandboxAhead } from "@plugboard/sandbox/sandbox-mode";
import type { BuildAppOptions } from "./app-options.ts";

/** The step started ahead for `config`'s app, or none (a workspace that is no folder is left for the plan to report). */
export function startAhead(config: AppConfig, options: Pick<BuildAppOptions, "warm" | "hostPrograms"> & { readonly env: Readonly<Record<string, string | undefined>> }): HostAhead | undefined {
  const confine = options.hostPrograms?.confine;
  if ((options.warm ?? []).length === 0 || confine === undefined) return undefined;
  const offline = (entry: PluginEntry) => entry.sandbox !== false && !entry.permissions.includes("network");
  if (![...config.plugins.values()].some((entry) => !("mcp" in entry) && offline(entry))) return undefined;
  const mechanism = sandboxAhead(config, options.env);
  if (mechanism === undefined || !statSync(config.workspace, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  const workspace = realpathSync(config.workspace);
  const { startHostAhead } = lazilySync("the confined plugin hosts", () => require("@plugboard/hosts/ahead") as typeof import("@plugboard/hosts/ahead"));
  try {
    return startHostAhead(mechanism, { grants: [], workspace, confineProgram: confine });
  } catch (error) {
    // `unshare` cannot be started (the system refused the spawn): the probe finds the same and says why.
    if (refusedBySystem(error)) return undefined;
    throw error;
  }
}
