/**
 * A grant a person saved after the sandbox refused a call: written into the plugin's entry of
 * the config file it is listed in, its comments and layout kept (config-edit.ts), as the app's
 * own write (the next start does not take it for a plugin's). A config that cannot be written
 * leaves the grant to this session, with a warning that says so.
 */
import { readFile, writeFile } from "node:fs/promises";
import type { Logger } from "@plugboard/core";
import { lazily, type MissingGrant } from "@plugboard/core/internal";
import type { EntryLocation } from "@plugboard/errors";
import { plantedRecordFile, writeTrusted } from "@plugboard/sandbox/planted-files";

/** Saves `grant` to the config entry of `name` (a plugin, an MCP server) at `where`; never throws (a failure is the logger's warning). */
export async function saveGrant(name: string, where: EntryLocation, grant: MissingGrant, env: Readonly<Record<string, string | undefined>>, logger: Logger): Promise<void> {
  const { configPath, index } = where;
  try {
    // Loaded when a person first saves a grant: a start never needs the config's editor.
    const { addEntryGrant } = await lazily("the config file's editor", () => import("@plugboard/config"));
    const text = addEntryGrant(await readFile(configPath, "utf8"), index, grant);
    await writeTrusted(plantedRecordFile(env), configPath, () => writeFile(configPath, text));
  } catch (error) {
    logger.warn(`the grant to ${name} could not be saved to ${configPath} (${error instanceof Error ? error.message : String(error)}); it holds until the session ends`);
  }
}
