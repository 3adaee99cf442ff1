/** `plugboard plugins`: what it accepts and what its help says; its handler, in plugins.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugins",
    usage: "plugboard plugins [flags]",
    summary: "each plugin with its version, tools and permissions",
    details: [
      "Lists the plugins the config enables, in config order, with the folder each was loaded from and why:",
      "a package is looked up beside the config first (its node_modules, then each parent's), then among the plugins shipped with plugboard.",
      "MCP servers the config mounts are listed too, with the version they report and their command line or URL.",
      'Paths an entry is granted besides the workspace ("read", "write") are listed under its permissions.',
    ],
    flags: ["config", "workspace", "json"],
    json: 'print a JSON array of {name, version, tools, permissions, read, write, directory, origin} (origin: "config", "app" or "path"; for an MCP server "mcp-stdio" or "mcp-http", with its command line or URL as directory)',
    args: { min: 0, max: 0 },
  },
  async () => (await import("./plugins.ts")).pluginsCommand,
);
