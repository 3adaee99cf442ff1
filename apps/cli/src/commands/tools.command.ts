/** `plugboard tools`: what it accepts and what its help says; its handler, in tools.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "tools",
    usage: "plugboard tools [flags]",
    summary: "the tools as the model sees them",
    details: [
      "Lists each enabled tool with its parameters (`?` marks optional ones) and description.",
      "A confined plugin's tools come from the listing cache (~/.cache/plugboard/hosts) while the plugin is unchanged; otherwise its host is started to list them.",
      'With more tools than the config\'s "tools.searchOver" (default 64), the model is sent tool_search and the pinned tools instead, and finds the others by searching: a last line says so.',
    ],
    flags: ["config", "workspace", "json"],
    json: "print exactly the `tools` array the model is sent: every enabled tool up to tools.searchOver, above it tool_search and the pinned tools",
    args: { min: 0, max: 0 },
  },
  async () => (await import("./tools.ts")).toolsCommand,
);
