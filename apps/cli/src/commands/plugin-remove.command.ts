/** `plugboard plugin remove`: what it accepts and what its help says; its handler, in plugin-remove.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugin remove",
    usage: "plugboard plugin remove [flags] PACKAGE",
    summary: "disable a plugin and uninstall its package",
    details: ["Removes PACKAGE's entry from the config's plugins and, when the config's folder installed it, the package itself (bun remove)."],
    flags: ["config"],
    args: { min: 1, max: 1 },
  },
  async () => (await import("./plugin-remove.ts")).pluginRemoveCommand,
);
