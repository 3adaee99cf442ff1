/** `plugboard web`: what it accepts and what its help says; its handler, in web.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "web",
    usage: "plugboard web [flags]",
    summary: "serve the web chat: the chat page at / and its API at /api/chat",
    details: [
      "The same chat as `bun run web` in a checkout: the config's tools, its policy (an ask is an approve/deny card in the page) and audit log, the model from the environment or flags' defaults.",
      "Without --config it uses ./plugboard.config.json or .jsonc in the current folder, else the CLI's own; a plugin package the config's folder lacks is taken from those shipped with plugboard.",
      "Prints the model, the workspace, the tools and the address on stderr, then serves until Ctrl-C, SIGTERM or SIGHUP (exit 130, 143, 129).",
    ],
    flags: ["config", "workspace", "port", "host", "token"],
    flagHelp: {
      port: "port to listen on, 0 for any free one (default: 8787)",
      host: "address to listen on (default: 127.0.0.1); any address other than loopback needs a token",
    },
    args: { min: 0, max: 0 },
  },
  async () => (await import("./web.ts")).webCommand,
);
