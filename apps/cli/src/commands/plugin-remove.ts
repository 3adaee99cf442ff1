/** `plugboard plugin remove PACKAGE`: take a plugin out of the config and uninstall its package. */
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { PlugboardError, plantedRecordFile, removePluginEntry, writeTrusted } from "@plugboard/bootstrap";
import { parseJson } from "@plugboard/config/json";
import { configErrors } from "@plugboard/config/messages";
import { dependsOn, packageSpec, removePackage } from "../app-packages.ts";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { localConfig } from "../load-app.ts";
import { lockFileOf, readLock, writeLock } from "@plugboard/config/lock-file";

/** Returns 0 when something was removed; a package neither listed nor installed is an error (exit 2). */
export async function pluginRemoveCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const { name } = packageSpec(parsed.args[0] ?? "");
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
  const edited = removePluginEntry(text, name);
  const installed = await dependsOn(folder, name);
  if (edited === undefined && !installed) {
    throw new PlugboardError("USAGE", `${name} is not in the plugins of ${configPath}, nor installed in ${folder}: nothing to remove.`);
  }
  // The app's own write: the next start does not take it for a plugin's.
  if (edited !== undefined) await writeTrusted(plantedRecordFile(io.env), configPath, () => writeFile(configPath, edited));
  if (installed) await removePackage(folder, name);
  await unpin(lockFileOf(configPath), name, plantedRecordFile(io.env));
  const done = [edited === undefined ? undefined : `its entry in ${configPath}`, installed ? `its package in ${folder}` : undefined].filter(Boolean);
  io.stdout.write(`Removed ${name}: ${done.join(" and ")}.\n`);
  return 0;
}

/** Drops what the lock pins of `name` (its code and tools), so that adding it again pins it afresh. */
async function unpin(lockPath: string, name: string, record: string | undefined): Promise<void> {
  if (!existsSync(lockPath)) return;
  const lock = await readLock(lockPath);
  if (lock.tools[name] === undefined && lock.code?.[name] === undefined) return;
  const { [name]: _tools, ...tools } = lock.tools;
  const { [name]: _code, ...code } = lock.code ?? {};
  await writeLock(lockPath, { ...lock, tools, ...(lock.code === undefined ? {} : { code }) }, record);
}
