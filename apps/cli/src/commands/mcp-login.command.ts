/** `plugboard mcp login`: what it accepts and what its help says; its handler, in mcp-login.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "mcp login",
    usage: "plugboard mcp login [flags] NAME",
    summary: "log in to a mounted Streamable HTTP MCP server that requires OAuth",
    details: [
      "For the config's MCP server NAME (an entry with a url): registers with its authorization server, prints the address to open in a browser, and waits for the redirect on http://127.0.0.1:PORT/callback.",
      "The tokens are kept in $XDG_CONFIG_HOME/plugboard/mcp-auth/NAME.json (else ~/.config/…; the folder 0700, the file 0600) and refreshed when they expire. Exits 0 once a connection with them works.",
    ],
    flags: ["config"],
    args: { min: 1, max: 1 },
  },
  async () => (await import("./mcp-login.ts")).mcpLoginCommand,
);
