/** `plugboard mcp logout`: what it accepts and what its help says; its handler, in mcp-login.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "mcp logout",
    usage: "plugboard mcp logout [flags] NAME",
    summary: "forget the OAuth tokens of a mounted MCP server",
    details: ["Deletes the tokens plugboard mcp login NAME kept; the server then needs a login again."],
    flags: ["config"],
    args: { min: 1, max: 1 },
  },
  async () => (await import("./mcp-login.ts")).mcpLogoutCommand,
);
