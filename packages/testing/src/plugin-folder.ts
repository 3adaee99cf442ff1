/** The plugin folder a caller names, checked: `checkPlugin` and `syncManifest` both start here. */
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { KitError } from "./errors.ts";

/** The real path of `directory`; throws a `KitError` (`PLUGIN_NOT_FOUND`) when it is not a folder. */
export async function pluginFolder(directory: string): Promise<string> {
  const absolute = resolve(directory);
  const info = await stat(absolute).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new KitError("PLUGIN_NOT_FOUND", `Plugin folder ${directory} does not exist or is not a folder (${absolute}).`);
  }
  return realpath(absolute);
}
