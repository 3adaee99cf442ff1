/**
 * The messages a person sees about the config file, its `.env` and the flags, each a
 * `PlugboardError` with a stable code. (A plugin's are the loader's, an MCP server's
 * `@plugboard/mcp`'s, the sandbox's its own.)
 */
import { indent, PlugboardError, type PluginAt } from "@plugboard/errors";
import type { JsonPosition } from "./json.ts";

/** A command-line flag with a value the app cannot use (`USAGE`); an app may add its own `--help` hint. */
export class FlagError extends PlugboardError {
  constructor(message: string) {
    super("USAGE", message);
  }
}

/** Problems with the config file, its `.env` or the flags. */
export const configErrors = {
  notFound: (path: string) =>
    new PlugboardError("CONFIG_NOT_FOUND", `Config file not found: ${path}\nCreate it, or point to another file (--config FILE).`),
  unreadable: (path: string, error: unknown) =>
    new PlugboardError(
      "CONFIG_NOT_FOUND",
      `Cannot read ${path}: ${error instanceof Error ? error.message : String(error)}\nMake it a regular file this user can read, or point to another config (--config FILE).`,
    ),
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
  unmatchedNames: (path: string, problems: readonly string[]) =>
    new PlugboardError(
      "CONFIG_INVALID",
      [
        `Invalid config file ${path}:`,
        ...problems.map(indent),
        `A rule, hook or pinned name that no tool has never matches: correct it, or enable the plugin or server that provides the tool (plugboard tools lists the names; a server's "prefix" is part of its tools' names).`,
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
  toolNameRefused: (path: string, owner: PluginAt & { readonly mcp: boolean }, tool: string, reason: string) =>
    new PlugboardError(
      "CONFIG_INVALID",
      [
        `${owner.name} (plugins[${owner.index}]) provides a tool named ${tool}, a name the model's dialect refuses: ${reason}.`,
        indent(`config: ${path}`),
        owner.mcp
          ? `Set a "prefix" on its entry that starts with a letter (such as "prefix": "${safePrefix(owner.name)}_"), or set "model": {"dialect": …} to one that takes the name.`
          : `Its tool names are the plugin's own (only an MCP server's entry takes a "prefix"): remove it from the config, or set "model": {"dialect": …} to one that takes the name.`,
        ].join("\n"),
      ),
  reservedGrant: ({ path, index, key, grant, folder }: { path: string; index: number; key: "read" | "write"; grant: string; folder: { readonly path: string; readonly what: string } }) =>
    new PlugboardError(
      "CONFIG_INVALID",
      [
        `Invalid config file ${path}:`,
        indent(
          `plugins[${index}].${key}: ${JSON.stringify(grant)} ${grant === folder.path ? "is" : "overlaps"} ${folder.what} (${folder.path}), which no plugin or server may ${key}: ${key === "write" ? "the app reads and runs what is there" : "it holds what Plugboard keeps for itself (its code, MCP logins, conversations)"}.`,
        ),
        `Remove it from "${key}" in plugins[${index}], or grant a folder of the tool's own instead (such as ~/.cache/my-tool).`,
      ].join("\n"),
    ),
  envURL: (name: string, source: string, got: string) =>
    new PlugboardError(
      "CONFIG_INVALID",
      `${name} (${source}) must be a URL such as https://api.openai.com/v1, got ${JSON.stringify(got)}.\nFix or unset it.`,
    ),
  envKeyUnsendable: (name: string, source: string, value: string, at: number) =>
    new PlugboardError(
      "CONFIG_INVALID",
      `${name} (${source}) holds ${JSON.stringify(value.charAt(at))} at character ${at + 1} of ${value.length}, which an HTTP header cannot carry, so no request could send the key.\nSet it to the key itself, as the provider gave it (no placeholder, line break or quotes around it), or unset it.`,
    ),
} as const;

/** A prefix made of a server's name, as Gemini's names take it. */
function safePrefix(name: string): string {
  const letters = name.replace(/[^A-Za-z0-9_]/g, "_");
  return /^[A-Za-z_]/.test(letters) ? letters : `mcp_${letters}`;
}
