/** `plugboard policy explain`: what it accepts and what its help says; its handler, in policy-explain.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "policy explain",
    usage: "plugboard policy explain [flags] TOOL [JSON]",
    summary: "how the config's policy decides one call, and which rule decides it",
    details: [
      "JSON is the call's arguments as one JSON object (default: {}); quote it for the shell. Nothing runs: no plugin is loaded and no hook is started.",
      "Prints the decision (allow, ask or deny), the rule that made it as the config writes it with its file and line, or the default;",
      "for a bash command judged by its parsed line, each command in it with its own decision and rule; then the hooks that would run (none for a denied call).",
      `Example: plugboard policy explain bash '{"command":"git status; touch x"}'`,
    ],
    flags: ["config", "workspace"],
    args: { min: 1, max: 2 },
  },
  async () => (await import("./policy-explain.ts")).policyExplainCommand,
);
