/** `plugboard policy test`: what it accepts and what its help says; its handler, in policy-test.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "policy test",
    usage: "plugboard policy test [flags] FILE",
    summary: "check a list of calls and the decisions they must get against the config's policy",
    details: [
      'FILE is a JSON list of cases, each { "tool": "bash", "args": { "command": "git status" }, "expect": "allow" } ("args" may be left out; comments allowed).',
      "Prints each case with ✓ or ✗ (the decision it got and the rule, file and line that made it), then a count.",
      "Exits 0 when every case matches, 1 when one does not, 2 when FILE is not such a list (the message says what to fix).",
    ],
    flags: ["config", "workspace"],
    args: { min: 1, max: 1 },
  },
  async () => (await import("./policy-test.ts")).policyTestCommand,
);
