/**
 * A grant a person saved after the sandbox refused a call: written into the entry of the plugin
 * (or MCP server) in the config file it is listed in, found there by its `package`, `path` or
 * server `name` when saved — the file may have been edited since the start — its comments and
 * layout kept (config-edit.ts), as the app's own write (the next start does not take it for a
 * plugin's). A config that cannot be written, or that no longer lists the entry, leaves the grant
 * to this session, with a warning that says so.
 */
import { readFile, writeFile } from "node:fs/promises";
import type { Logger } from "@plugboard/core";
import { lazily, type MissingGrant } from "@plugboard/core/internal";
import type { EntryKey, McpEntry, PluginEntry, ServerKey } from "@plugboard/config";
import { plantedRecordFile, writeTrusted } from "@plugboard/sandbox/planted-files";

/** Whose grant, and the config file that lists its entry. */
export interface GrantOwner {
  /** The plugin's or server's name, for messages. */
  readonly name: string;
  readonly configPath: string;
  readonly entry: PluginEntry | McpEntry;
}

/** Saves `grant` to `owner`'s config entry; never throws (a failure is the logger's warning). */
export async function saveGrant(owner: GrantOwner, grant: MissingGrant, env: Readonly<Record<string, string | undefined>>, logger: Logger): Promise<void> {
  const { name, configPath, entry } = owner;
  try {
    // Loaded when a person first saves a grant: a start never needs the config's editor.
    const { addEntryGrant } = await lazily("the config file's editor", () => import("@plugboard/config"));
    const text = addEntryGrant(await readFile(configPath, "utf8"), entryKey(entry), grant);
    await writeTrusted(plantedRecordFile(env), configPath, () => writeFile(configPath, text));
  } catch (error) {
    logger.warn(`the grant to ${name} could not be saved to ${configPath} (${error instanceof Error ? error.message : String(error)}); it holds until the session ends`);
  }
}

/** How the config names `entry`: a server by its name, a plugin by its package or its path as written. */
function entryKey(entry: PluginEntry | McpEntry): EntryKey | ServerKey {
  if ("mcp" in entry) return { name: entry.name };
  return entry.package === undefined ? { path: entry.path ?? "." } : { package: entry.package };
}
