/**
 * The messages a person sees about an MCP server the config mounts, each a `PlugboardError`
 * with a stable code, in the one shape of an entry's failure: what is wrong (naming the
 * server), where (its config entry), then what to change.
 */
import { type EntryLocation, entryFailure, indent, PlugboardError, type PluginAt } from "@plugboard/errors";

/** Problems with an MCP server the config mounts. */
export const mcpErrors = {
  startFailed: (name: string, reason: string, stderr: readonly string[], where: EntryLocation) =>
    entryFailure("MCP_SERVER", where, {
      problem: `MCP server ${name} failed to start or list its tools: ${reason}`,
      details: stderr.length === 0 ? [] : ["last lines of its stderr:", ...stderr.map(indent)],
      fix: `Check its "mcp" entry: the command, its "args" and "env" (or the "url" and "headers"), and that the server runs on its own.`,
    }),
  unseenArgument: (name: string, file: string, grant: string, where: EntryLocation) =>
    entryFailure("MCP_SERVER", where, {
      problem: `MCP server ${name} failed to start: its argument ${file} is a file outside its sandbox, which it cannot see (arguments never widen what a confined server sees).`,
      fix: `Grant it to the server: add "read": [${JSON.stringify(grant)}] to its entry (the folder of its code, read-only), or run it unconfined with "sandbox": false.`,
    }),
  commandNotFound: (name: string, command: string, where: EntryLocation) =>
    entryFailure("MCP_SERVER", where, {
      problem: `MCP server ${name} failed to start: its command ${command} is not found${command.includes("/") ? "" : " on PATH"}.`,
      fix: `Install ${command}, or correct "command" in its "mcp" entry (a program on PATH, or a path to one).`,
    }),
  commandNotExecutable: (name: string, command: string, where: EntryLocation) =>
    entryFailure("MCP_SERVER", where, {
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
