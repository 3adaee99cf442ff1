/** `plugboard plugin sync`: what it accepts and what its help says; its handler, in plugin-sync.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugin sync",
    usage: "plugboard plugin sync [flags] [DIR]",
    summary: "write the manifest's tool list from the plugin's code",
    details: [
      "Builds the tools of the plugin in DIR (default: the current folder) with its default options, in a child process as plugin check does,",
      'and makes the "tools" of its plugboard.plugin.json list them in the same order: each name, and the first sentence of its description',
      "(up to the first . ! or ? followed by a space, not counting e.g. or ...). The rest of the file is left exactly as it was.",
      "Prints what changed (added, removed, changed description, reordered) or that the manifest is up to date, and exits 0;",
      "exits 2, with one line saying why, when the plugin cannot be loaded. It runs the plugin's code: sync your own plugin, as you test it.",
    ],
    flags: ["check"],
    args: { min: 0, max: 1 },
  },
  async () => (await import("./plugin-sync.ts")).pluginSyncCommand,
);
