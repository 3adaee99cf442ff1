/** `plugboard plugin add`: what it accepts and what its help says; its handler, in plugin-add.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugin add",
    usage: "plugboard plugin add [flags] PACKAGE",
    summary: "install a plugin package beside the config and enable it",
    details: [
      "Installs PACKAGE (a name, or name@version) into the config's folder with bun add, shows its tools and the permissions it asks for, and asks you to grant them.",
      'Then adds { "package": PACKAGE, "permissions": [...] } to the config\'s plugins (./plugboard.config.json, created with the shipped plugins when there is none) and runs plugboard check.',
      "If you decline, or the check fails, the config and the folder are left as they were (exit 1 or 2). Without a terminal, pass --yes.",
    ],
    flags: ["config", "registry", "yes"],
    flagHelp: { yes: "grant the permissions the plugin asks for without asking (needed when there is no terminal)" },
    args: { min: 1, max: 1 },
  },
  async () => (await import("./plugin-add.ts")).pluginAddCommand,
);
