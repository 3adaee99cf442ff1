/** `plugboard plugin accept`: what it accepts and what its help says; its handler, in plugin-accept.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugin accept",
    usage: "plugboard plugin accept [flags] NAME",
    summary: "offer a pinned plugin's or MCP server's changed tools to the model again",
    details: [
      "The tools of mounted MCP servers and of installed third-party plugins are pinned in plugboard.lock.json beside the config the first time they are listed:",
      "each tool's description and a hash of its input schema. A tool whose description or schema differs later, or a new tool, is withheld from the model until accepted.",
      'NAME is the plugin\'s package name or the server\'s "name" in the config: every changed and new tool of it is accepted, and the tools it no longer has are dropped from the lock.',
      "NAME may also be one tool's name (as the model sees it): only that tool is accepted. Prints what was accepted and exits 0; exits 2 when nothing pinned has that name.",
      "First-party @plugboard/* plugins (they ship with plugboard) and path plugins (your own code) are not pinned.",
    ],
    flags: ["config", "workspace"],
    args: { min: 1, max: 1 },
  },
  async () => (await import("./plugin-accept.ts")).pluginAcceptCommand,
);
