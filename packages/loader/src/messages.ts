/**
 * The messages a person sees about one plugin, found before or while loading it, each a
 * `PlugboardError` with a stable code, in the one shape of an entry's failure: what is wrong
 * (naming the plugin), where (the config entry and the files), then what to change.
 */
import type { JsonPosition } from "@plugboard/config/json";
import { CONTRACT_VERSION, type Permission } from "@plugboard/core";
import { plural } from "@plugboard/core/internal";
import { type EntryLocation, entryFailure, indent, PlugboardError, type PluginAt } from "@plugboard/errors";
import { PERMISSION_EFFECTS } from "@plugboard/sandbox/grants";

/** Problems with one plugin, found before or while loading it. */
export const pluginErrors = {
  packageNotFound: (name: string, where: EntryLocation, from: string, appFolder: string | undefined) =>
    entryFailure("PLUGIN_NOT_FOUND", where, {
      problem: `Plugin ${name} is not installed: no node_modules/${name} in ${from} or any folder above it${appFolder === undefined ? "" : `, nor in the app's own installation (${appFolder})`}.`,
      fix: `Install it in the app's folder (bun add ${name}), or check the "package" name.`,
    }),
  pathNotFound: (path: string, resolved: string, where: EntryLocation) =>
    entryFailure("PLUGIN_NOT_FOUND", where, {
      problem: `Plugin folder ${path} does not exist (${resolved}).`,
      fix: `Check the "path": it is relative to the config file's folder.`,
    }),
  pathNotFolder: (path: string, resolved: string, where: EntryLocation) =>
    entryFailure("PLUGIN_NOT_FOUND", where, {
      problem: `Plugin path ${path} is not a folder (${resolved}).`,
      fix: `Point "path" at the plugin's folder, the one holding plugboard.plugin.json.`,
    }),
  manifestUnreadable: (plugin: string, manifestPath: string, error: unknown, where: EntryLocation) =>
    entryFailure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin}'s manifest cannot be read: ${error instanceof Error ? error.message : String(error)}.`,
      details: [`manifest: ${manifestPath}`],
      fix: `Make plugboard.plugin.json a regular file this user can read (reinstall ${plugin} if it came from a package).`,
    }),
  packageJsonUnreadable: (plugin: string, path: string, error: unknown, where: EntryLocation) =>
    entryFailure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin}'s package.json cannot be read: ${error instanceof Error ? error.message : String(error)}.`,
      details: [`package.json: ${path}`],
      fix: `Make package.json a regular file (reinstall ${plugin} if it came from a package).`,
    }),
  manifestMissing: (plugin: string, manifestPath: string, where: EntryLocation) =>
    entryFailure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin} has no manifest.`,
      details: [`missing: ${manifestPath}`],
      fix: `Check that ${plugin} is a Plugboard plugin; every plugin ships plugboard.plugin.json at its root.`,
    }),
  jsonSyntax: (plugin: string, file: string, at: JsonPosition, where: EntryLocation) =>
    entryFailure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin}: ${file} is not valid JSON: line ${at.line}, column ${at.column}: ${at.problem}`,
      fix: "Fix the JSON syntax there (or ask the plugin's author to).",
    }),
  manifestInvalid: (plugin: string, manifestPath: string, problems: readonly string[], where: EntryLocation) =>
    entryFailure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin} has an invalid manifest ${manifestPath}:`,
      details: problems,
      fix: "Fix these keys in the manifest (or ask the plugin's author to).",
    }),
  entryMissing: (plugin: string, entry: string, manifestPath: string, where: EntryLocation) =>
    entryFailure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin}: its manifest's entry ${entry} is not a file inside the plugin's folder.`,
      details: [`manifest: ${manifestPath}`],
      fix: `Fix "entry" in the manifest: a path relative to the plugin's folder, such as ./src/index.ts.`,
    }),
  versionMismatch: (manifest: NameVersion, pkg: NameVersion, files: { manifest: string; packageJson: string }, where: EntryLocation) =>
    entryFailure("PLUGIN_VERSION", where, {
      problem: `Plugin ${manifest.name}: its manifest says ${manifest.name}@${manifest.version} but its package.json says ${pkg.name}@${pkg.version}.`,
      details: [`manifest: ${files.manifest}`, `package.json: ${files.packageJson}`],
      fix: `Make the manifest's "name" and "version" equal package.json's.`,
    }),
  contract: (plugin: string, range: string, manifestPath: string, where: EntryLocation) =>
    entryFailure("PLUGIN_CONTRACT", where, {
      problem: `Plugin ${plugin} supports contract ${range}, this Plugboard provides ${CONTRACT_VERSION}.`,
      details: [`manifest: ${manifestPath}`],
      fix: `Install a version of ${plugin} made for contract ${majorOf(CONTRACT_VERSION)}.x, or a Plugboard whose contract matches ${range}.`,
    }),
  permission: (plugin: string, missing: readonly Permission[], granted: readonly Permission[], manifestPath: string, where: EntryLocation) =>
    entryFailure("PLUGIN_PERMISSION", where, {
      problem: `Plugin ${plugin} needs ${plural(missing.length, "permission")} ${missing.join(", ")}, which its config entry does not grant.`,
      details: [`manifest: ${manifestPath}`],
      fix:
        `To allow it, set "permissions": ${JSON.stringify([...granted, ...missing]).replaceAll(",", ", ")} ` +
        `in plugins[${where.index}] of ${where.configPath}. ` +
        `This lets ${plugin} ${missing.map((permission) => PERMISSION_EFFECTS[permission]).join(" and ")}.`,
    }),
  permissionNotOffered: (plugin: string, unasked: readonly Permission[], offered: readonly Permission[], manifestPath: string, where: EntryLocation) =>
    entryFailure("PLUGIN_PERMISSION", where, {
      problem: `Plugin ${plugin} does not ask for ${plural(unasked.length, "permission")} ${unasked.join(", ")}, which its config entry grants.`,
      details: [`manifest: ${manifestPath} (permissions and optionalPermissions: ${offered.length > 0 ? offered.join(", ") : "none"})`],
      fix: `Remove ${unasked.join(", ")} from "permissions" in plugins[${where.index}] of ${where.configPath}: a plugin is granted only what its manifest lists.`,
    }),
  importFailed: (plugin: string, entryPath: string, cause: unknown, where: EntryLocation) =>
    entryFailure("PLUGIN_IMPORT", where, {
      problem: `Plugin ${plugin} failed to load: importing its entry threw: ${messageOf(cause)}`,
      details: [`entry: ${entryPath}`],
      fix: "Fix the plugin's code (or ask its author to), or remove it from the config.",
      cause,
    }),
  notAPlugin: (plugin: string, entryPath: string, problem: string, where: EntryLocation) =>
    entryFailure("PLUGIN_IMPORT", where, {
      problem: `Plugin ${plugin}: its entry does not export a plugin (${problem}).`,
      details: [`entry: ${entryPath}`],
      fix: "The entry's default export must be definePlugin({ options, tools }) from @plugboard/core.",
    }),
  options: (plugin: string, problems: readonly string[], where: EntryLocation) =>
    entryFailure("PLUGIN_OPTIONS", where, {
      problem: `Plugin ${plugin} has invalid options:`,
      details: problems,
      fix: `Fix "options" in plugins[${where.index}] of ${where.configPath}; the plugin's README lists its options.`,
    }),
  toolsFailed: (plugin: string, entryPath: string, cause: unknown, where: EntryLocation) =>
    entryFailure("PLUGIN_TOOLS", where, {
      problem: `Plugin ${plugin} failed to create its tools: ${messageOf(cause)}`,
      details: [`entry: ${entryPath}`],
      fix: "Fix the plugin's code (or ask its author to), or remove it from the config.",
      cause,
    }),
  toolsInvalid: (plugin: string, entryPath: string, problem: string, where: EntryLocation) =>
    entryFailure("PLUGIN_TOOLS", where, {
      problem: `Plugin ${plugin} returned something that is not a list of tools: ${problem}.`,
      details: [`entry: ${entryPath}`],
      fix: "Its tools function must return tool definitions made with defineTool.",
    }),
  toolsDiffer: (plugin: string, diff: ToolListDiff, manifestPath: string, where: EntryLocation) =>
    entryFailure("PLUGIN_TOOLS", where, {
      problem: `Plugin ${plugin} returned tools that differ from its manifest's list.`,
      details: [
        ...(diff.missing.length > 0 ? [`missing: ${diff.missing.join(", ")} (in the manifest, not returned)`] : []),
        ...(diff.extra.length > 0 ? [`extra: ${diff.extra.join(", ")} (returned, not in the manifest)`] : []),
        ...(diff.missing.length + diff.extra.length === 0
          ? [`order: manifest ${diff.expected.join(", ")}; returned ${diff.actual.join(", ")}`]
          : []),
        `manifest: ${manifestPath}`,
      ],
      fix: `The manifest's "tools" must list exactly the tools the entry returns, in the same order: fix the plugin (or ask its author to).`,
    }),
  duplicateTool: (tool: string, first: PluginAt, second: PluginAt, configPath: string) =>
    new PlugboardError(
      "PLUGIN_DUPLICATE_TOOL",
      [
        first.name === second.name
          ? `Plugin ${first.name} is listed twice (plugins[${first.index}] and plugins[${second.index}]), so its tool ${tool} would exist twice.`
          : `Tool ${tool} is provided by two plugins: ${first.name} (plugins[${first.index}]) and ${second.name} (plugins[${second.index}]).`,
        indent(`config: ${configPath}`),
        first.name === second.name ? "Remove one of the two entries from the config." : "Remove one of them from the config.",
      ].join("\n"),
    ),
} as const;

/** A name and a version, as a manifest and a package.json state them. */
export interface NameVersion {
  readonly name: string;
  readonly version: string;
}

/** How the tools a plugin returned differ from its manifest's list. */
export interface ToolListDiff {
  readonly expected: readonly string[];
  readonly actual: readonly string[];
  readonly missing: readonly string[];
  readonly extra: readonly string[];
}

function majorOf(version: string): string {
  return version.split(".")[0] ?? version;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
