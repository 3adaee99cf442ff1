/** `plugboard plugin new`: what it accepts and what its help says; its handler, in plugin-new.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "plugin new",
    usage: "plugboard plugin new [flags] NAME",
    summary: "scaffold a plugin package, ready to test and publish",
    details: [
      "Creates the package plugboard-plugin-NAME (@scope/plugboard-plugin-NAME for NAME @scope/NAME; @scope/plugin-NAME, the form of Plugboard's own packages, is kept as written): package.json, manifest, README, an example tool and its tests.",
      "NAME is lower-case letters and digits in words joined by single dashes, starting with a letter. A folder that is not empty is refused (exit 2).",
      "Then: cd into the folder, bun install, bun test. A tool's name and description are written once, in its defineTool;",
      "after changing them (or adding a tool), plugboard plugin sync writes them into the manifest.",
    ],
    flags: ["dir"],
    args: { min: 1, max: 1 },
  },
  async () => (await import("./plugin-new.ts")).pluginNewCommand,
);
