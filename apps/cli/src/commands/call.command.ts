/** `plugboard call`: what it accepts and what its help says; its handler, in call.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "call",
    usage: "plugboard call [flags] TOOL [JSON]",
    summary: "one tool call through the same runtime, no model",
    details: [
      "JSON is the tool's arguments as one JSON object (default: {}); quote it for the shell.",
      "Prints the result on stdout; exits 1 when the result is an error (`Error: …`), 130 on Ctrl-C.",
      "The call is your own: where the config's policy says ask, it counts as approved (--yes changes nothing); a deny still applies.",
    ],
    flags: ["config", "workspace", "yes", "json"],
    json: 'print {"type":"tool_result","id","is_error","content"}',
    args: { min: 1, max: 2 },
  },
  async () => (await import("./call.ts")).callCommand,
);
