/**
 * Finding a plugin and checking everything that can be checked without running its code:
 * where it is, its manifest, its package.json, its entry file and the permissions granted.
 * Its few small files are read at once, not handed to Bun's file threads one await after
 * another: an app's start resolves every plugin of its config before anything else can run.
 */
import { type Stats, realpathSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import type { PluginEntry } from "@plugboard/config";
import { parseJson } from "@plugboard/config/json";
import { BoundedReadError, readTextBounded } from "@plugboard/core/internal";
import { type Manifest, readManifest } from "./manifest.ts";
import type { EntryLocation } from "@plugboard/errors";
import { pluginErrors } from "./messages.ts";

/**
 * Where a plugin was found: `path`, a folder the config names; `config`, a package installed
 * for the config's folder; `app`, a package of the running app's own installation.
 */
export type PluginOrigin = "path" | "config" | "app";

/** A plugin whose files and manifest passed every check; none of its code has run. */
export interface ResolvedPlugin {
  readonly entry: PluginEntry;
  readonly where: EntryLocation;
  /** The real path of the plugin's folder. */
  readonly directory: string;
  readonly origin: PluginOrigin;
  readonly manifestPath: string;
  readonly manifest: Manifest;
  /** The absolute path of the module to import. */
  readonly entryPath: string;
}

/**
 * Locates the plugin of config entry `entry` and validates it. `package` entries are npm
 * packages resolved from the config file's folder (its `node_modules`, then each parent's),
 * then from `appFolder` (the running app's own installation, which ships the first-party
 * plugins); `path` entries are folders relative to the config file. Throws a
 * `PlugboardError` naming the plugin.
 */
export async function resolvePlugin(entry: PluginEntry, where: EntryLocation, appFolder?: string): Promise<ResolvedPlugin> {
  const found = await inspectPlugin(entry, where, appFolder);
  const { manifest, manifestPath } = found;
  const missing = manifest.permissions.filter((permission) => !entry.permissions.includes(permission));
  if (missing.length > 0) {
    throw pluginErrors.permission(manifest.name, missing, [...new Set(entry.permissions)], manifestPath, where);
  }
  // The config grants only what the manifest asks for or offers to use: a grant is a right the sandbox gives.
  const offered = [...manifest.permissions, ...manifest.optionalPermissions];
  const unasked = entry.permissions.filter((permission) => !offered.includes(permission));
  if (unasked.length > 0) throw pluginErrors.permissionNotOffered(manifest.name, [...new Set(unasked)], offered, manifestPath, where);
  return found;
}

/**
 * `resolvePlugin` without the permission check: where the plugin is and its validated
 * manifest, for a tool that shows a person what a plugin asks for before granting it.
 *
 * @example const { manifest } = await inspectPlugin({ package: "@acme/plugin-notes", permissions: [], options: undefined }, { index: 0, configPath });
 */
export async function inspectPlugin(entry: PluginEntry, where: EntryLocation, appFolder?: string): Promise<ResolvedPlugin> {
  const label = entry.package ?? entry.path ?? `plugins[${where.index}]`;
  const { directory, origin } = locate(entry, where, appFolder);
  const { path: manifestPath, manifest } = await readManifest(directory, label, where);
  checkPackageJson(directory, manifest, manifestPath, where);
  const entryPath = entryFile(directory, manifest, manifestPath, where);
  return { entry, where, directory, origin, manifestPath, manifest, entryPath };
}

function locate(entry: PluginEntry, where: EntryLocation, appFolder: string | undefined): { directory: string; origin: PluginOrigin } {
  const configFolder = dirname(where.configPath);
  if (entry.package !== undefined) {
    const local = findPackage(entry.package, configFolder);
    if (local !== undefined) return { directory: local, origin: "config" };
    const shipped = appFolder === undefined ? undefined : findPackage(entry.package, appFolder);
    if (shipped !== undefined) return { directory: shipped, origin: "app" };
    throw pluginErrors.packageNotFound(entry.package, where, configFolder, appFolder);
  }
  const path = entry.path ?? ".";
  const folder = resolve(configFolder, path);
  const info = statOrNone(folder);
  if (info === undefined) throw pluginErrors.pathNotFound(path, folder, where);
  if (!info.isDirectory()) throw pluginErrors.pathNotFolder(path, folder, where);
  return { directory: realpathSync(folder), origin: "path" };
}

/**
 * Node's lookup for a bare package name, done by hand: `node_modules/<name>` in `from` and
 * each parent. Reading the folder directly ignores the package's `exports` map and never
 * lets the runtime try to auto-install a missing package. The real path of its folder, or
 * undefined.
 */
export function findPackage(name: string, from: string): string | undefined {
  for (let folder = resolve(from); ; folder = dirname(folder)) {
    const candidate = join(folder, "node_modules", name);
    if (statOrNone(join(candidate, "package.json"))?.isFile()) return realpathSync(candidate);
    if (dirname(folder) === folder) return undefined;
  }
}

/** A plugin folder without package.json is allowed (a local tool); with one, name and version must match. */
function checkPackageJson(directory: string, manifest: Manifest, manifestPath: string, where: EntryLocation): void {
  const path = join(directory, "package.json");
  let text: string;
  try {
    text = readTextBounded(path);
  } catch (error) {
    // None is allowed (nor one this user cannot read); a FIFO, a device or an endless file is the plugin's failure.
    if (!(error instanceof BoundedReadError) || error.code === "EISDIR") return;
    throw pluginErrors.packageJsonUnreadable(manifest.name, path, error, where);
  }
  const json = parseJson(text);
  if (!json.ok) throw pluginErrors.jsonSyntax(manifest.name, path, json, where);
  const pkg = typeof json.value === "object" && json.value !== null ? (json.value as Record<string, unknown>) : {};
  const found = { name: String(pkg.name ?? "(none)"), version: String(pkg.version ?? "(none)") };
  if (found.name !== manifest.name || found.version !== manifest.version) {
    throw pluginErrors.versionMismatch(manifest, found, { manifest: manifestPath, packageJson: path }, where);
  }
}

function entryFile(directory: string, manifest: Manifest, manifestPath: string, where: EntryLocation): string {
  const path = resolve(directory, manifest.entry);
  const fromRoot = relative(directory, path);
  const inside = fromRoot !== ".." && !fromRoot.startsWith(`..${sep}`);
  const info = inside ? statOrNone(path) : undefined;
  if (!info?.isFile()) throw pluginErrors.entryMissing(manifest.name, manifest.entry, manifestPath, where);
  return path;
}

/** `path`'s stats, or none where it cannot be looked at (missing, a file on the way, not ours to search). */
function statOrNone(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
