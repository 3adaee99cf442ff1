/**
 * `plugboard plugin remove NAME|PATH`: take a plugin out of the config, uninstall
 * its package (when the config's folder installed it) and drop its pins from the lock.
 */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { type EntryKey, MANIFEST_FILE, PlugboardError, plantedRecordFile, removePluginEntry, writeTrusted } from "@plugboard/bootstrap";
import { parseJson } from "@plugboard/config/json";
import { lockFileOf, readLock, writeLock } from "@plugboard/config/lock-file";
import { configErrors } from "@plugboard/config/messages";
import { dependsOn, installedFrom, removePackage } from "../app-packages.ts";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { localConfig } from "../load-app.ts";
import { listedFolders, type PluginArgument, pluginArgument } from "../plugin-argument.ts";

/** Returns 0 when something was removed; a plugin neither listed nor installed is an error (exit 2). */
export async function pluginRemoveCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const given = parsed.args[0] ?? "";
  const argument = pluginArgument(given, io.cwd, io.env.HOME);
  const configPath = parsed.flags.config === undefined ? localConfig(io.cwd, io.env) : resolve(io.cwd, parsed.flags.config);
  if (configPath === undefined) {
    throw new PlugboardError("CONFIG_NOT_FOUND", `No plugboard.config.json in ${io.cwd}: there is no plugin to remove here. Point to the config with --config FILE.`);
  }
  const folder = dirname(configPath);
  const text = await readFile(configPath, "utf8").catch(() => {
    throw new PlugboardError("CONFIG_NOT_FOUND", `Config file not found: ${configPath}`);
  });
  const parsedConfig = parseJson(text);
  if (!parsedConfig.ok) throw configErrors.syntax(configPath, parsedConfig);
  const found = await which(argument, text, folder);
  const edited = found.entry === undefined ? undefined : removePluginEntry(text, found.entry);
  const installed = found.name !== undefined && found.entry !== undefined && "package" in found.entry && (await dependsOn(folder, found.name));
  if (edited === undefined && !installed) {
    const where = argument.kind === "package" ? `, nor installed in ${folder}` : "";
    throw new PlugboardError("USAGE", `${given} is not in the plugins of ${configPath}${where}: nothing to remove.`);
  }
  // The app's own write: the next start does not take it for a plugin's.
  if (edited !== undefined) await writeTrusted(plantedRecordFile(io.env), configPath, () => writeFile(configPath, edited));
  if (installed && found.name !== undefined) await removePackage(folder, found.name);
  const lockPath = lockFileOf(configPath);
  const unpinned = found.name !== undefined && (await unpin(lockPath, found.name, plantedRecordFile(io.env)));
  const done = [edited === undefined ? undefined : `its entry in ${configPath}`, installed ? `its package in ${folder}` : undefined, unpinned ? `its pins in ${lockPath}` : undefined];
  io.stdout.write(`Removed ${found.name ?? given}: ${andList(done.filter((part) => part !== undefined))}.\n`);
  return 0;
}

/**
 * The entry `argument` names and the plugin's name (what its pins are kept under): a package
 * by its name; a folder by a `path` entry that names it, however written; a tarball by the
 * package installed from it; a name no package is listed by, by the `path` entry of the
 * plugin so named.
 */
async function which(argument: PluginArgument, text: string, folder: string): Promise<{ entry?: EntryKey; name?: string }> {
  const folders = listedFolders(text, folder);
  if (argument.kind === "folder") {
    const listed = folders.find((entry) => entry.folder === argument.path);
    return listed === undefined ? {} : { entry: { path: listed.written }, ...named(await manifestName(listed.folder)) };
  }
  const name = argument.kind === "package" ? argument.name : await installedFrom(folder, argument.path);
  if (name === undefined) return {};
  if (argument.kind === "package" && removePluginEntry(text, { package: name }) === undefined) {
    for (const listed of folders) if ((await manifestName(listed.folder)) === name) return { entry: { path: listed.written }, name };
  }
  return { entry: { package: name }, name };
}

/** The name a plugin folder's manifest gives it; undefined when there is none to read (the folder gone). */
async function manifestName(folder: string): Promise<string | undefined> {
  const text = await readFile(join(folder, MANIFEST_FILE), "utf8").catch(() => undefined);
  const parsed = text === undefined ? undefined : parseJson(text);
  const name = parsed?.ok && typeof parsed.value === "object" && parsed.value !== null ? Reflect.get(parsed.value, "name") : undefined;
  return typeof name === "string" ? name : undefined;
}

function named(name: string | undefined): { name?: string } {
  return name === undefined ? {} : { name };
}

/** Drops what the lock pins of `name` (its code and tools), so that adding it again pins it afresh; whether there was anything. */
async function unpin(lockPath: string, name: string, record: string | undefined): Promise<boolean> {
  if (!existsSync(lockPath)) return false;
  const lock = await readLock(lockPath);
  if (lock.tools[name] === undefined && lock.code?.[name] === undefined) return false;
  const { [name]: _tools, ...tools } = lock.tools;
  const { [name]: _code, ...code } = lock.code ?? {};
  await writeLock(lockPath, { ...lock, tools, ...(lock.code === undefined ? {} : { code }) }, record);
  return true;
}

/** `a`, `a and b`, `a, b and c`. */
function andList(parts: readonly string[]): string {
  return parts.length < 2 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}
