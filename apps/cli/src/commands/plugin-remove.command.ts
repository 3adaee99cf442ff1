/** `plugboard plugin remove`: what it accepts and what its help says; its handler, in plugin-remove.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugin remove",
    usage: "plugboard plugin remove [flags] NAME|PATH",
    summary: "disable a plugin, uninstall its package and drop its pins",
    details: [
      "Removes the plugin's entry from the config's plugins: a package's by its NAME, a path entry by its folder's PATH (./my-plugin) or by the plugin's NAME.",
      "When the config's folder installed the package (plugin add with a package or a tarball), uninstalls it (bun remove); and drops what plugboard.lock.json pins of the plugin (its code and tools), so that adding it again pins it afresh.",
    ],
    flags: ["config"],
    args: { min: 1, max: 1 },
  },
  async () => (await import("./plugin-remove.ts")).pluginRemoveCommand,
);
