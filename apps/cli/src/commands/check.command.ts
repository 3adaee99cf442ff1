/** `plugboard check`: what it accepts and what its help says; its handler, in check.ts, is imported when it runs. */
import { MODEL_FLAGS } from "../flags.ts";
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "check",
    usage: "plugboard check [flags]",
    summary: "validate the config and every plugin without running anything",
    details: [
      "Reads the config, then every plugin's manifest, options and tools, and opens the workspace and the audit log; no tool call.",
      "Every confined plugin's host is started and asked for its tools, whatever the listing cache (~/.cache/plugboard/hosts) holds, and the cache is refreshed.",
      "Then asks the model endpoint for its models (an endpoint without /models: for a one-token completion), so a refused key, an unknown model or an unreachable host fails here (exit 3, with what to change); the offline demo model is not contacted, and --offline contacts nothing.",
      "Prints a short summary (with the policy's rules in order and its default, the audit log, and the paths each plugin or server is granted besides the workspace), or the problems.",
      "Exits 0 when all is well; 1 when pinned tools are withheld, or plugins not loaded, because they changed since plugboard.lock.json pinned them (plugboard plugin accept NAME offers them again); 2 with the problems of the config or a plugin; 3 when the model endpoint fails.",
    ],
    flags: [...MODEL_FLAGS, "offline"],
    args: { min: 0, max: 0 },
  },
  async () => (await import("./check.ts")).checkCommand,
);
