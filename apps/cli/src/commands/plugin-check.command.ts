/** `plugboard plugin check`: what it accepts and what its help says; its handler, in plugin-check.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugin check",
    usage: "plugboard plugin check [flags] DIR",
    summary: "run the conformance checks on a plugin folder",
    details: [
      "Loads and calls the plugin in child processes, in a temp workspace, and prints each check with ✓ or ✗ and what to fix.",
      "A manifest whose tools are not the code's (names, order, or descriptions as plugboard plugin sync writes them) fails the tools check, with plugboard plugin sync as the fix.",
      "Exits 0 when no check failed (a warning passes), 1 when one failed, 2 when DIR is not a folder.",
    ],
    flags: ["json"],
    json: "print the report as JSON: {directory, plugin, checks: [{id, title, status, problems, fix, notes}], ok}",
    args: { min: 1, max: 1 },
  },
  async () => (await import("./plugin-check.ts")).pluginCheckCommand,
);
