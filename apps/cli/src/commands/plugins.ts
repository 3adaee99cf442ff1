/** `plugboard plugins`: each enabled plugin with its version, tools and permissions. */
import type { PluginOrigin } from "@plugboard/bootstrap";
import { visible } from "@plugboard/core/internal";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { loadApp } from "../load-app.ts";

const ORIGINS: Readonly<Record<PluginOrigin | "mcp-stdio" | "mcp-http", string>> = {
  path: "a folder the config names",
  config: "installed beside the config",
  app: "shipped with plugboard",
  "mcp-stdio": "an MCP server over stdio",
  "mcp-http": "an MCP server over Streamable HTTP",
};

/** Prints the plugins in config order; returns the exit code. */
export async function pluginsCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const app = await loadApp(parsed, io, { announceWorkspace: false });
  const loaded = app.plugins.map((plugin) => ({
    name: plugin.name,
    version: plugin.version,
    tools: plugin.tools.map((tool) => tool.name),
    permissions: [...plugin.permissions],
    directory: plugin.directory,
    origin: plugin.origin,
  }));
  const servers = app.servers.map((server) => ({
    name: server.name,
    version: server.version,
    tools: server.tools.map((tool) => tool.name),
    permissions: [...server.permissions],
    directory: server.target,
    origin: `mcp-${server.transport}` as const,
  }));
  // Not loaded: its code differs from what the person accepted (said on stderr with the files and the fix).
  const unloaded = new Map(
    app.codePinning.withheld.map((change) => [
      change.index,
      { name: change.source, version: "(not loaded: its code changed since pinned)", tools: [], permissions: [], directory: change.directory, origin: "config" as const },
    ]),
  );
  // Config order: each entry is a plugin not loaded, the next plugin or the next server.
  const plugins = app.config.plugins.flatMap((entry, index) => {
    const listed = unloaded.get(index) ?? ("mcp" in entry ? servers.shift() : loaded.shift());
    return listed === undefined ? [] : [{ ...listed, read: entry.read ?? [], write: entry.write ?? [] }];
  });
  if (parsed.flags.json) {
    await io.print(`${JSON.stringify(plugins, null, 2)}\n`);
    return 0;
  }
  if (plugins.length === 0) {
    await io.print(`No plugins are enabled in ${app.config.configPath}.\n`);
    return 0;
  }
  const text = plugins.map((plugin) =>
    [
      `${plugin.name} ${plugin.version}`,
      `  tools:       ${plugin.tools.join(", ") || "(none)"}`,
      `  permissions: ${plugin.permissions.join(", ") || "(none)"}`,
      ...(plugin.read.length === 0 ? [] : [`  reads:       ${plugin.read.join(", ")}`]),
      ...(plugin.write.length === 0 ? [] : [`  writes:      ${plugin.write.join(", ")}`]),
      `  from:        ${plugin.directory} (${ORIGINS[plugin.origin]})`,
    ].join("\n"),
  );
  // Names, versions and tool names come from the plugins and servers themselves.
  await io.print(`${visible(text.join("\n\n"))}\n`);
  return 0;
}
