/** `plugboard plugins`: each enabled plugin with its version, tools and permissions. */
import type { PluginOrigin } from "@plugboard/bootstrap";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { loadApp } from "../load-app.ts";

const ORIGINS: Readonly<Record<PluginOrigin, string>> = {
  path: "a folder the config names",
  config: "installed beside the config",
  app: "shipped with plugboard",
};

/** Prints the plugins in config order; returns the exit code. */
export async function pluginsCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const app = await loadApp(parsed, io, { announceWorkspace: false });
  const plugins = app.plugins.map((plugin) => ({
    name: plugin.name,
    version: plugin.version,
    tools: plugin.tools.map((tool) => tool.name),
    permissions: [...plugin.permissions],
    directory: plugin.directory,
    origin: plugin.origin,
  }));
  if (parsed.flags.json) {
    io.stdout.write(`${JSON.stringify(plugins, null, 2)}\n`);
    return 0;
  }
  if (plugins.length === 0) {
    io.stdout.write(`No plugins are enabled in ${app.config.configPath}.\n`);
    return 0;
  }
  const text = plugins.map((plugin) =>
    [
      `${plugin.name} ${plugin.version}`,
      `  tools:       ${plugin.tools.join(", ") || "(none)"}`,
      `  permissions: ${plugin.permissions.join(", ") || "(none)"}`,
      `  from:        ${plugin.directory} (${ORIGINS[plugin.origin]})`,
    ].join("\n"),
  );
  io.stdout.write(`${text.join("\n\n")}\n`);
  return 0;
}
