/** `plugboard plugin add`: what it accepts and what its help says; its handler, in plugin-add.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugin add",
    usage: "plugboard plugin add [flags] PACKAGE|PATH",
    summary: "enable a plugin: a package or tarball installed beside the config, or a folder",
    details: [
      "PACKAGE (a name, or name@version) is installed into the config's folder with bun add; so is a tarball (a PATH ending in .tgz, as bun pm pack makes). A plugin's folder (a PATH: ./my-plugin, ../plugins/notes, /abs/path, ~/…) is not installed: the config lists it by its path.",
      "Shows the plugin's tools and the permissions it asks for, and asks you to grant them.",
      'Then adds { "package": NAME, "permissions": [...] } (or { "path": "./my-plugin", … }: relative inside the config\'s folder, else absolute) to the config\'s plugins (./plugboard.config.json, created with the shipped plugins when there is none) and runs plugboard check, which pins a package\'s tools, naming each whose description is flagged, with the reasons (as plugin accept does).',
      "If you decline, or the check fails, the config and the folder are left as they were (exit 1 or 2). Without a terminal, pass --yes.",
    ],
    flags: ["config", "registry", "yes"],
    flagHelp: { yes: "grant the permissions the plugin asks for without asking (needed when there is no terminal)" },
    args: { min: 1, max: 1 },
  },
  async () => (await import("./plugin-add.ts")).pluginAddCommand,
);
