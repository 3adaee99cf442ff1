/** `plugboard mcp`: what it accepts and what its help says; its handler, in mcp.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "mcp",
    usage: "plugboard mcp [flags]",
    summary: "serve the tools to MCP clients (Claude, Cursor, VS Code…) over stdio or HTTP",
    details: [
      "Serves the config's tools over the Model Context Protocol: on stdin/stdout by default, for a client that starts plugboard itself;",
      "with --http, over Streamable HTTP at http://HOST:PORT/mcp (stateless: run as many copies as you like behind a load balancer, each given the others with --peers).",
      "Every call passes the config's policy and audit log; a call the policy asks about is refused, since no one can be asked, unless --yes approves it. Annotations follow each plugin's permissions.",
      "With PLUGBOARD_MCP_TOKEN set, HTTP clients must send Authorization: Bearer TOKEN; without it, only loopback is served.",
    ],
    flags: ["config", "workspace", "yes", "http", "port", "host", "peers"],
    args: { min: 0, max: 0 },
  },
  async () => (await import("./mcp.ts")).mcpCommand,
);
