/** The plugin folder a caller names, checked: `checkPlugin` and `syncManifest` both start here. */
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { PlugboardError } from "@plugboard/bootstrap";

/** The real path of `directory`; throws a `PlugboardError` (`PLUGIN_NOT_FOUND`) when it is not a folder. */
export async function pluginFolder(directory: string): Promise<string> {
  const absolute = resolve(directory);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new PlugboardError("PLUGIN_NOT_FOUND", `Plugin folder ${directory} does not exist or is not a folder (${absolute}).`);
  }
  return realpath(absolute);
}
