/**
 * The pins of plugboard.lock.json, applied: a plugin's code before any of it runs (code-pins.ts:
 * one whose files changed is not loaded), and the tools of every pinned source once the
 * sources are open (pinned-tools.ts: one whose description or schema changed is withheld from
 * the model). Unless the caller handles the changes (`changedTools`), each is said as a warning
 * with how to accept it.
 */
import type { AppConfig } from "@plugboard/config";
import { lockFileOf } from "@plugboard/config/lock-file";
import { plantedRecordFile } from "@plugboard/sandbox/planted-files";
import type { ResolvedPlugin } from "@plugboard/loader/resolve-plugin";
import type { Plan } from "./plan.ts";
import type { BuildAppOptions } from "./app-options.ts";
import { type CodePinning, pinCode, pinnedCode, withheldCodeLine } from "./code-pins.ts";
import type { Provided } from "./open-sources.ts";
import { type Pinning, pinTools, withheldLine } from "./pinned-tools.ts";

/** The code pins of `found`'s plugins applied, and whether the lock pins the code of any. */
export async function pinPluginCode(
  config: AppConfig,
  found: readonly ResolvedPlugin[],
  workspace: string,
  options: BuildAppOptions & Pick<Plan["options"], "logger" | "env">,
): Promise<{ readonly codePinning: CodePinning; readonly pinsCode: boolean }> {
  const lock = lockFileOf(config.configPath);
  const pinned = await pinnedCode(found, options.appFolder, workspace);
  // What the app writes itself (the lock) is trusted as written, so that the next start reads it (see `writeTrusted`).
  const codePinning = await pinCode(lock, pinned, options.changedTools, plantedRecordFile(options.env));
  if (options.changedTools === undefined) for (const change of codePinning.withheld) options.logger.warn(withheldCodeLine(change, lock));
  return { codePinning, pinsCode: pinned.length > 0 };
}

/**
 * The tools of the pinned sources compared with their pins: every mounted MCP server's, and
 * every installed plugin's outside the `@plugboard` npm scope (which only the project
 * publishes to, and whose plugins ship with the CLI). A `path` plugin is the config's own code.
 */
export async function pinSourceTools({ config, options, plugins }: Plan, provided: readonly Provided[]): Promise<Pinning> {
  const thirdParty = new Set(plugins.filter(({ origin, manifest }) => origin !== "path" && !manifest.name.startsWith("@plugboard/")).map(({ where }) => where.index));
  const sources = provided.filter(({ index, mcp }) => mcp || thirdParty.has(index)).map(({ owner, entries }) => ({ name: owner, entries }));
  const names = provided.flatMap(({ entries }) => entries.map(({ tool }) => tool.name));
  const pinning = await pinTools(lockFileOf(config.configPath), sources, options.changedTools, plantedRecordFile(options.env), names);
  if (options.changedTools === undefined) for (const change of pinning.withheld) options.logger.warn(withheldLine(change, pinning.lockPath));
  return pinning;
}
