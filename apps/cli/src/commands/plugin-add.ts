/**
 * `plugboard plugin add PACKAGE [--registry URL] [--yes]`: install a plugin beside the
 * config, show what it asks for, let the person grant it, enable it, and check the app.
 * Declined or failing, the config and the folder are left as they were.
 */
import { existsSync } from "node:fs";
import { readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { addPluginEntry, inspectPlugin, PERMISSION_EFFECTS, type Permission } from "@plugboard/bootstrap";
import { addPackage, dependsOn, packageSpec, removePackage } from "../app-packages.ts";
import { type ParsedArgs, UsageError } from "../args.ts";
import type { Io } from "../io.ts";
import { localConfig, SHIPPED_CONFIG } from "../load-app.ts";
import { checkCommand } from "./check.ts";

/** Returns 0 when added and checked, 1 when the person declined; problems throw (exit 2). */
export async function pluginAddCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const { name } = packageSpec(parsed.args[0] ?? "");
  const terminal = io.stdin.isTTY === true && io.stdout.isTTY === true;
  if (!parsed.flags.yes && !terminal) {
    throw new UsageError(`plugin add asks you to grant ${name}'s permissions, and there is no terminal to ask on; pass --yes to grant them`, "plugin add");
  }
  const configPath = parsed.flags.config === undefined ? (localConfig(io.cwd) ?? join(io.cwd, "plugboard.config.json")) : resolve(io.cwd, parsed.flags.config);
  const folder = dirname(configPath);
  const before = { config: existsSync(configPath) ? await readFile(configPath, "utf8") : undefined, installed: await dependsOn(folder, name) };
  const undo = async () => {
    if (before.config === undefined) await rm(configPath, { force: true });
    else await writeFile(configPath, before.config);
    if (!before.installed) await removePackage(folder, name);
  };

  io.note(`installing ${parsed.args[0]} in ${folder}`);
  await addPackage(folder, parsed.args[0] ?? name, parsed.flags.registry);
  const configText = before.config ?? (await readFile(SHIPPED_CONFIG, "utf8"));
  const { manifest } = await inspectPlugin({ package: name, permissions: [], options: undefined }, { index: 0, configPath }).catch(async (error: unknown) => {
    await undo();
    throw error;
  });
  io.stdout.write(describePlugin(manifest));

  const granted = parsed.flags.yes ? [...manifest.permissions] : await ask(io, manifest.name, manifest.permissions);
  if (granted === undefined) {
    await undo();
    io.stdout.write(`Not added: ${manifest.name} is uninstalled and ${configPath} is unchanged.\n`);
    return 1;
  }
  await writeFile(configPath, addPluginEntry(configText, { package: name, permissions: granted }));
  try {
    const checked = { ...parsed, flags: { ...parsed.flags, config: configPath } };
    io.stdout.write(`Added ${manifest.name} to ${configPath} with permissions [${granted.join(", ")}].\n`);
    return await checkCommand(checked, io);
  } catch (error) {
    await undo();
    io.note(`${manifest.name} was not added: the check failed, so ${configPath} and ${folder} are as they were.`);
    throw error;
  }
}

function describePlugin(manifest: { name: string; version: string; tools: readonly { name: string; description: string }[]; permissions: readonly Permission[] }): string {
  const width = Math.max(...manifest.tools.map((tool) => tool.name.length));
  return [
    `${manifest.name} ${manifest.version}`,
    "  tools:",
    ...manifest.tools.map((tool) => `    ${tool.name.padEnd(width)}  ${tool.description}`),
    manifest.permissions.length === 0 ? "  permissions: none" : "  permissions it asks for:",
    ...manifest.permissions.map((permission) => `    ${permission.padEnd(13)}  ${PERMISSION_EFFECTS[permission]}`),
    "",
  ].join("\n");
}

/** Asks once for all the permissions; undefined when the person declines. */
async function ask(io: Io, name: string, permissions: readonly Permission[]): Promise<Permission[] | undefined> {
  if (permissions.length === 0) return [];
  const prompt = createInterface({ input: io.stdin, output: io.stdout });
  try {
    const answer = await prompt.question(`Grant ${permissions.join(", ")} to ${name}? [y/N] `);
    return /^y(es)?$/i.test(answer.trim()) ? [...permissions] : undefined;
  } finally {
    prompt.close();
  }
}
