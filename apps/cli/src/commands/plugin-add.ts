/**
 * `plugboard plugin add PACKAGE|PATH [--registry URL] [--yes]`: install a plugin beside the
 * config (a package, or a tarball's PATH; a folder's PATH is listed as it is), show what it
 * asks for, let the person grant it, enable it, and check the app. Declined or failing, the
 * config and the folder are left as they were.
 */
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import {
  addPluginEntry,
  type EntryKey,
  inspectPlugin,
  PERMISSION_EFFECTS,
  type Permission,
  PlugboardError,
  plantedRecordFile,
  type ResolvedPlugin,
  removePluginEntry,
  writeTrusted,
} from "@plugboard/bootstrap";
import { parseJson } from "@plugboard/config/json";
import { visible } from "@plugboard/core/internal";
import { describeRule, type PolicyRule, wildcardMatch } from "@plugboard/runtime";
import { addPackage, dependencies, installedFrom, removePackage } from "../app-packages.ts";
import { type ParsedArgs, UsageError } from "../args.ts";
import type { Io } from "../io.ts";
import { localConfig, SHIPPED_CONFIG } from "../load-app.ts";
import { checkAddable, entryPath, listedFolders, type PluginArgument, pluginArgument } from "../plugin-argument.ts";
import { checkCommand } from "./check.ts";

/** Returns 0 when added and checked, 1 when the person declined; problems throw (exit 2). */
export async function pluginAddCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const given = parsed.args[0] ?? "";
  const argument = pluginArgument(given, io.cwd, io.env.HOME);
  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true;
  if (!parsed.flags.yes && !terminal) {
    const whose = argument.kind === "package" ? argument.name : given;
    throw new UsageError(`plugin add asks you to grant ${whose}'s permissions, and there is no terminal to ask on; pass --yes to grant them`, "plugin add");
  }
  checkAddable(argument, given);
  const configPath = parsed.flags.config === undefined ? (localConfig(io.cwd, io.env) ?? join(io.cwd, "plugboard.config.json")) : resolve(io.cwd, parsed.flags.config);
  const folder = dirname(configPath);
  const before = existsSync(configPath) ? await readFile(configPath, "utf8") : undefined;
  const configText = before ?? (await readFile(SHIPPED_CONFIG, "utf8"));
  // The app's own writes: the next start does not take them for a plugin's.
  const write = (text: string) => writeTrusted(plantedRecordFile(io.env), configPath, () => writeFile(configPath, text));
  const { entry, uninstall } = await install(argument, { folder, configText, registry: parsed.flags.registry, io });
  const undo = async () => {
    if (before === undefined) await rm(configPath, { force: true });
    else await write(before);
    await uninstall?.();
  };

  const { manifest } = await inspectPlugin({ ...entry, permissions: [], options: undefined }, { index: 0, configPath }).catch(async (error: unknown) => {
    await undo();
    throw error;
  });
  // The manifest is the package author's text.
  io.stdout.write(visible(describePlugin(manifest)));

  const granted = parsed.flags.yes ? [...manifest.permissions] : await ask(io, manifest);
  if (parsed.flags.yes && manifest.optionalPermissions.length > 0) {
    io.note(`--yes grants only what ${manifest.name} needs; to let it also ${manifest.optionalPermissions.map((permission) => PERMISSION_EFFECTS[permission]).join(" and ")}, add ${manifest.optionalPermissions.join(", ")} to its "permissions" in ${configPath}.`);
  }
  if (granted === undefined) {
    await undo();
    io.stdout.write(`Not added: ${uninstall === undefined ? "" : `${manifest.name} is uninstalled and `}${configPath} is unchanged.\n`);
    return 1;
  }
  const listed = removePluginEntry(configText, entry) !== undefined;
  await write(addPluginEntry(configText, { ...entry, permissions: granted }));
  try {
    const checked = { ...parsed, flags: { ...parsed.flags, config: configPath } };
    const done = listed ? `Updated ${manifest.name} in` : `Added ${manifest.name} to`;
    io.stdout.write(`${done} ${configPath} with permissions [${granted.join(", ")}].\n`);
    const asking = askingTools(configText, manifest.tools.map((tool) => tool.name));
    for (const line of asking) io.stdout.write(`The config's policy will ask before ${line}: approve each call when asked, or run with --yes.\n`);
    // What the person just installed is what the lock pins for it: a version added again over an older pin loads.
    return await checkCommand(checked, io, manifest.name);
  } catch (error) {
    await undo();
    const what = uninstall === undefined ? `${configPath} is as it was` : `${configPath} and ${folder} are as they were`;
    io.note(`${manifest.name} was not added: the check failed, so ${what}.`);
    throw error;
  }
}

/** Where `install` puts a plugin, and what it needs to say. */
interface InstallPlace {
  readonly folder: string;
  readonly configText: string;
  readonly registry: string | undefined;
  readonly io: Io;
}

/**
 * Installs the package or tarball `argument` names beside the config (`bun add`); a folder is
 * not installed. Returns the config entry that enables it (a folder: by the path the config
 * lists it by already, else `./REL` inside the config's folder, else its absolute path), and
 * how to take the install back (none when nothing new was installed).
 */
async function install(argument: PluginArgument, place: InstallPlace): Promise<{ entry: EntryKey; uninstall?: () => Promise<void> }> {
  const { folder, io } = place;
  if (argument.kind === "folder") {
    const listed = listedFolders(place.configText, folder).find((entry) => entry.folder === argument.path);
    return { entry: { path: listed?.written ?? entryPath(argument.path, folder) } };
  }
  const spec = argument.kind === "package" ? argument.spec : argument.path;
  const had = await dependencies(folder);
  io.note(`installing ${spec} in ${folder}`);
  await addPackage(folder, spec, argument.kind === "package" ? place.registry : undefined);
  const name = argument.kind === "package" ? argument.name : await installedFrom(folder, spec);
  if (name === undefined) {
    throw new PlugboardError("PLUGIN_NOT_FOUND", `bun add installed ${spec} in ${folder}, but its package.json does not list it: add the plugin by hand (its name in package.json's dependencies, as a { "package": NAME } entry).`);
  }
  return { entry: { package: name }, ...(Object.hasOwn(had, name) ? {} : { uninstall: () => removePackage(folder, name) }) };
}

/** A plugin's manifest, as bootstrap reads it. */
type Manifest = ResolvedPlugin["manifest"];

function describePlugin(manifest: Manifest): string {
  const width = Math.max(...manifest.tools.map((tool) => tool.name.length));
  const rows = (permissions: readonly Permission[]) => permissions.map((permission) => `    ${permission.padEnd(13)}  ${PERMISSION_EFFECTS[permission]}`);
  return [
    `${manifest.name} ${manifest.version}`,
    "  tools:",
    ...manifest.tools.map((tool) => `    ${tool.name.padEnd(width)}  ${tool.description}`),
    manifest.permissions.length === 0 ? "  permissions: none" : "  permissions it asks for:",
    ...rows(manifest.permissions),
    ...(manifest.optionalPermissions.length === 0 ? [] : ["  permissions it can use if you grant them (optional):", ...rows(manifest.optionalPermissions)]),
    "",
  ].join("\n");
}

/** Asks for the permissions it needs (declined: undefined), then for each optional one. */
async function ask(io: Io, manifest: Manifest): Promise<Permission[] | undefined> {
  const prompt = createInterface({ input: io.stdin, output: io.stdout });
  const yes = async (question: string) => /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  try {
    if (manifest.permissions.length > 0 && !(await yes(`Grant ${manifest.permissions.join(", ")} to ${manifest.name}?`))) return undefined;
    const granted = [...manifest.permissions];
    for (const permission of manifest.optionalPermissions) {
      if (await yes(`Also let it ${PERMISSION_EFFECTS[permission]} (${permission})?`)) granted.push(permission);
    }
    return granted;
  } finally {
    prompt.close();
  }
}

/**
 * Each of `tools` the config's policy asks about, with why: `bash runs (rule bash → ask)` or
 * `notes runs (its default is ask)`; a rule with argument patterns asks only for some calls.
 */
function askingTools(configText: string, tools: readonly string[]): string[] {
  const parsed = parseJson(configText);
  const policy = parsed.ok && typeof parsed.value === "object" && parsed.value !== null ? Reflect.get(parsed.value, "policy") : undefined;
  if (typeof policy !== "object" || policy === null) return [];
  const rules: PolicyRule[] = Array.isArray(Reflect.get(policy, "rules")) ? Reflect.get(policy, "rules") : [];
  const fallback = Reflect.get(policy, "default") ?? "allow";
  return tools.flatMap((tool) => {
    const matching = rules.filter((rule) => typeof rule.tool === "string" && wildcardMatch(rule.tool, tool));
    const decisive = matching.findIndex((rule) => rule.args === undefined);
    const considered = decisive < 0 ? matching : matching.slice(0, decisive + 1);
    const asks = considered.find((rule) => rule.action === "ask");
    if (asks !== undefined) return [`${tool} runs (rule ${describeRule(asks)} → ask${asks.args === undefined ? "" : ", for the calls it matches"})`];
    return decisive < 0 && fallback === "ask" ? [`${tool} runs (its default is ask)`] : [];
  });
}
