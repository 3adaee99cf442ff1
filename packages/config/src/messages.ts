/**
 * Every message a person sees from the config, the plugin loader and the app's assembly is
 * built here, each with a stable code. A plugin message has the same shape: what is wrong
 * (naming the plugin), where (the config entry and the file), then what to change.
 */
import { CONTRACT_VERSION } from "@plugboard/core";
import { PlugboardError, type PlugboardErrorCode } from "./errors.ts";
import { PERMISSION_EFFECTS, type Permission } from "./permissions.ts";

/** A command-line flag with a value the app cannot use (`USAGE`); an app may add its own `--help` hint. */
export class FlagError extends PlugboardError {
  constructor(message: string) {
    super("USAGE", message);
  }
}

/** Where a plugin is listed: its index in `plugins` and the config file. */
export interface EntryLocation {
  readonly index: number;
  readonly configPath: string;
}

/** Problems with the config file, its `.env` or the flags. */
export const configErrors = {
  notFound: (path: string) =>
    new PlugboardError("CONFIG_NOT_FOUND", `Config file not found: ${path}\nCreate it, or point to another file (--config FILE).`),
  notAFile: (path: string) =>
    new PlugboardError("CONFIG_NOT_FOUND", `Config path is a folder, not a file: ${path}\nPoint to the JSON config file inside it.`),
  syntax: (path: string, at: JsonPosition) =>
    new PlugboardError(
      "CONFIG_INVALID",
      `Config file ${path} is not valid JSON: line ${at.line}, column ${at.column}: ${at.problem}\nFix the JSON syntax there.`,
    ),
  invalid: (path: string, problems: readonly string[]) =>
    new PlugboardError("CONFIG_INVALID", [`Invalid config file ${path}:`, ...problems.map(indent)].join("\n")),
  flag: (flag: string, expected: string, got: string | undefined) =>
    new FlagError(`${flag} must be ${expected}, got '${got}'`),
  auditLog: (path: string, configPath: string, reason: string) =>
    new PlugboardError(
      "CONFIG_INVALID",
      `Cannot open the audit log ${path} (${reason}), set by "audit" in ${configPath}.\nPoint "audit" at a file in a folder that exists and that this user may write.`,
    ),
  pinnedUnknown: (path: string, unknown: readonly string[]) =>
    new PlugboardError(
      "CONFIG_INVALID",
      [
        `Invalid config file ${path}:`,
        indent(`tools.pinned: ${unknown.join(", ")} ${unknown.length === 1 ? "is not a tool" : "are not tools"} of any enabled plugin or MCP server`),
        `Remove ${unknown.length === 1 ? "it" : "them"} from "tools.pinned", or enable the plugin or server that provides ${unknown.length === 1 ? "it" : "them"} (plugboard tools lists the names; a server's "prefix" is part of its tools' names).`,
      ].join("\n"),
    ),
  toolSearchTaken: (path: string, owner: PluginAt, searchOver: number, tools: number) =>
    new PlugboardError(
      "CONFIG_INVALID",
      [
        `${owner.name} (plugins[${owner.index}]) provides a tool named tool_search, the name of the built-in tool search, which is on because ${tools} tools are enabled (more than "tools.searchOver": ${searchOver}).`,
        indent(`config: ${path}`),
        `Set a "prefix" on its entry (an MCP server) or remove it from the config, or set "tools.searchOver" to ${tools} or more to send every tool instead.`,
      ].join("\n"),
    ),
  envURL: (name: string, source: string, got: string) =>
    new PlugboardError(
      "CONFIG_INVALID",
      `${name} (${source}) must be a URL such as https://api.openai.com/v1, got ${JSON.stringify(got)}.\nFix or unset it.`,
    ),
} as const;

/** Problems with one plugin, found before or while loading it. */
export const pluginErrors = {
  packageNotFound: (name: string, where: EntryLocation, from: string, appFolder: string | undefined) =>
    failure("PLUGIN_NOT_FOUND", where, {
      problem: `Plugin ${name} is not installed: no node_modules/${name} in ${from} or any folder above it${appFolder === undefined ? "" : `, nor in the app's own installation (${appFolder})`}.`,
      fix: `Install it in the app's folder (bun add ${name}), or check the "package" name.`,
    }),
  pathNotFound: (path: string, resolved: string, where: EntryLocation) =>
    failure("PLUGIN_NOT_FOUND", where, {
      problem: `Plugin folder ${path} does not exist (${resolved}).`,
      fix: `Check the "path": it is relative to the config file's folder.`,
    }),
  pathNotFolder: (path: string, resolved: string, where: EntryLocation) =>
    failure("PLUGIN_NOT_FOUND", where, {
      problem: `Plugin path ${path} is not a folder (${resolved}).`,
      fix: `Point "path" at the plugin's folder, the one holding plugboard.plugin.json.`,
    }),
  manifestMissing: (plugin: string, manifestPath: string, where: EntryLocation) =>
    failure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin} has no manifest.`,
      details: [`missing: ${manifestPath}`],
      fix: `Check that ${plugin} is a Plugboard plugin; every plugin ships plugboard.plugin.json at its root.`,
    }),
  jsonSyntax: (plugin: string, file: string, at: JsonPosition, where: EntryLocation) =>
    failure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin}: ${file} is not valid JSON: line ${at.line}, column ${at.column}: ${at.problem}`,
      fix: "Fix the JSON syntax there (or ask the plugin's author to).",
    }),
  manifestInvalid: (plugin: string, manifestPath: string, problems: readonly string[], where: EntryLocation) =>
    failure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin} has an invalid manifest ${manifestPath}:`,
      details: problems,
      fix: "Fix these keys in the manifest (or ask the plugin's author to).",
    }),
  entryMissing: (plugin: string, entry: string, manifestPath: string, where: EntryLocation) =>
    failure("PLUGIN_MANIFEST", where, {
      problem: `Plugin ${plugin}: its manifest's entry ${entry} is not a file inside the plugin's folder.`,
      details: [`manifest: ${manifestPath}`],
      fix: `Fix "entry" in the manifest: a path relative to the plugin's folder, such as ./src/index.ts.`,
    }),
  versionMismatch: (manifest: NameVersion, pkg: NameVersion, files: { manifest: string; packageJson: string }, where: EntryLocation) =>
    failure("PLUGIN_VERSION", where, {
      problem: `Plugin ${manifest.name}: its manifest says ${manifest.name}@${manifest.version} but its package.json says ${pkg.name}@${pkg.version}.`,
      details: [`manifest: ${files.manifest}`, `package.json: ${files.packageJson}`],
      fix: `Make the manifest's "name" and "version" equal package.json's.`,
    }),
  contract: (plugin: string, range: string, manifestPath: string, where: EntryLocation) =>
    failure("PLUGIN_CONTRACT", where, {
      problem: `Plugin ${plugin} supports contract ${range}, this Plugboard provides ${CONTRACT_VERSION}.`,
      details: [`manifest: ${manifestPath}`],
      fix: `Install a version of ${plugin} made for contract ${majorOf(CONTRACT_VERSION)}.x, or a Plugboard whose contract matches ${range}.`,
    }),
  permission: (plugin: string, missing: readonly Permission[], granted: readonly Permission[], manifestPath: string, where: EntryLocation) =>
    failure("PLUGIN_PERMISSION", where, {
      problem: `Plugin ${plugin} needs ${plural(missing.length, "permission")} ${missing.join(", ")}, which its config entry does not grant.`,
      details: [`manifest: ${manifestPath}`],
      fix:
        `To allow it, set "permissions": ${JSON.stringify([...granted, ...missing]).replaceAll(",", ", ")} ` +
        `in plugins[${where.index}] of ${where.configPath}. ` +
        `This lets ${plugin} ${missing.map((permission) => PERMISSION_EFFECTS[permission]).join(" and ")}.`,
    }),
  permissionNotOffered: (plugin: string, unasked: readonly Permission[], offered: readonly Permission[], manifestPath: string, where: EntryLocation) =>
    failure("PLUGIN_PERMISSION", where, {
      problem: `Plugin ${plugin} does not ask for ${plural(unasked.length, "permission")} ${unasked.join(", ")}, which its config entry grants.`,
      details: [`manifest: ${manifestPath} (permissions and optionalPermissions: ${offered.length > 0 ? offered.join(", ") : "none"})`],
      fix: `Remove ${unasked.join(", ")} from "permissions" in plugins[${where.index}] of ${where.configPath}: a plugin is granted only what its manifest lists.`,
    }),
  importFailed: (plugin: string, entryPath: string, cause: unknown, where: EntryLocation) =>
    failure("PLUGIN_IMPORT", where, {
      problem: `Plugin ${plugin} failed to load: importing its entry threw: ${messageOf(cause)}`,
      details: [`entry: ${entryPath}`],
      fix: "Fix the plugin's code (or ask its author to), or remove it from the config.",
      cause,
    }),
  notAPlugin: (plugin: string, entryPath: string, problem: string, where: EntryLocation) =>
    failure("PLUGIN_IMPORT", where, {
      problem: `Plugin ${plugin}: its entry does not export a plugin (${problem}).`,
      details: [`entry: ${entryPath}`],
      fix: "The entry's default export must be definePlugin({ options, tools }) from @plugboard/core.",
    }),
  options: (plugin: string, problems: readonly string[], where: EntryLocation) =>
    failure("PLUGIN_OPTIONS", where, {
      problem: `Plugin ${plugin} has invalid options:`,
      details: problems,
      fix: `Fix "options" in plugins[${where.index}] of ${where.configPath}; the plugin's README lists its options.`,
    }),
  toolsFailed: (plugin: string, entryPath: string, cause: unknown, where: EntryLocation) =>
    failure("PLUGIN_TOOLS", where, {
      problem: `Plugin ${plugin} failed to create its tools: ${messageOf(cause)}`,
      details: [`entry: ${entryPath}`],
      fix: "Fix the plugin's code (or ask its author to), or remove it from the config.",
      cause,
    }),
  toolsInvalid: (plugin: string, entryPath: string, problem: string, where: EntryLocation) =>
    failure("PLUGIN_TOOLS", where, {
      problem: `Plugin ${plugin} returned something that is not a list of tools: ${problem}.`,
      details: [`entry: ${entryPath}`],
      fix: "Its tools function must return tool definitions made with defineTool.",
    }),
  toolsDiffer: (plugin: string, diff: ToolListDiff, manifestPath: string, where: EntryLocation) =>
    failure("PLUGIN_TOOLS", where, {
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

/** Problems with an MCP server the config mounts. */
export const mcpErrors = {
  startFailed: (name: string, reason: string, stderr: readonly string[], where: EntryLocation) =>
    failure("MCP_SERVER", where, {
      problem: `MCP server ${name} failed to start or list its tools: ${reason}`,
      details: stderr.length === 0 ? [] : ["last lines of its stderr:", ...stderr.map(indent)],
      fix: `Check its "mcp" entry: the command, its "args" and "env" (or the "url" and "headers"), and that the server runs on its own.`,
    }),
  commandNotFound: (name: string, command: string, where: EntryLocation) =>
    failure("MCP_SERVER", where, {
      problem: `MCP server ${name} failed to start: its command ${command} is not found${command.includes("/") ? "" : " on PATH"}.`,
      fix: `Install ${command}, or correct "command" in its "mcp" entry (a program on PATH, or a path to one).`,
    }),
  commandNotExecutable: (name: string, command: string, where: EntryLocation) =>
    failure("MCP_SERVER", where, {
      problem: `MCP server ${name} failed to start: its command ${command} is not an executable file.`,
      fix: `Make it executable (chmod +x ${command}), or correct "command" in its "mcp" entry (a program on PATH, or a path to one).`,
    }),
  duplicateTool: (tool: string, first: PluginAt, second: PluginAt, server: PluginAt, configPath: string) =>
    new PlugboardError(
      "PLUGIN_DUPLICATE_TOOL",
      [
        first.name === second.name
          ? `MCP server ${first.name} (plugins[${first.index}]) offers two tools named ${tool}.`
          : `Tool ${tool} is provided twice: by ${first.name} (plugins[${first.index}]) and by ${second.name} (plugins[${second.index}]).`,
        indent(`config: ${configPath}`),
        `Set a "prefix" on the MCP server's entry (plugins[${server.index}], e.g. "prefix": "${prefixFor(server.name)}") so its tools get names of their own, or remove one of them from the config.`,
      ].join("\n"),
    ),
} as const;

/** A prefix suggestion from a server's name: `server-everything` → `server_everything_`. */
function prefixFor(name: string): string {
  return `${name.replace(/[^A-Za-z0-9_]/g, "_")}_`;
}

/** Where and why a file is not JSON. */
export interface JsonPosition {
  readonly line: number;
  readonly column: number;
  readonly problem: string;
}

/** A name and a version, as a manifest and a package.json state them. */
export interface NameVersion {
  readonly name: string;
  readonly version: string;
}

/** A plugin by name and its index in `plugins`. */
export interface PluginAt {
  readonly name: string;
  readonly index: number;
}

/** How the tools a plugin returned differ from its manifest's list. */
export interface ToolListDiff {
  readonly expected: readonly string[];
  readonly actual: readonly string[];
  readonly missing: readonly string[];
  readonly extra: readonly string[];
}

interface Failure {
  /** What is wrong, naming the plugin. */
  readonly problem: string;
  /** Indented lines: each problem, the files involved. */
  readonly details?: readonly string[];
  /** What to change. */
  readonly fix: string;
  readonly cause?: unknown;
}

function failure(code: PlugboardErrorCode, where: EntryLocation, failure: Failure): PlugboardError {
  const lines = [
    failure.problem,
    ...(failure.details ?? []).map(indent),
    indent(`config: plugins[${where.index}] in ${where.configPath}`),
    failure.fix,
  ];
  return new PlugboardError(code, lines.join("\n"), failure.cause === undefined ? undefined : { cause: failure.cause });
}

function indent(line: string): string {
  return `  ${line}`;
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

function majorOf(version: string): string {
  return version.split(".")[0] ?? version;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
