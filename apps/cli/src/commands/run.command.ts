/** `plugboard run`: what it accepts and what its help says; its handler, in run.ts, is imported when it runs. */
import { MODEL_FLAGS } from "../flags.ts";
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "run",
    usage: "plugboard run [flags] PROMPT...",
    summary: "one turn: the answer on stdout, a trace of each tool call on stderr",
    details: [
      "The words after `run` are joined into the prompt; with none, the prompt is read from stdin (when it is not a terminal).",
      "Exits 0 when answered, 1 when the step limit stops the turn, 3 when the model endpoint fails or answers with neither text nor a tool call, 130 on Ctrl-C.",
      "A call the config's policy asks about is asked on the terminal (y once, a always for this tool, c always for commands like it, n no); with no terminal it is refused unless --yes.",
    ],
    flags: [...MODEL_FLAGS, "yes", "json"],
    json: 'one JSON event per line on stdout: {"type":"tool_call",…}, {"type":"tool_result",…}, {"type":"final",…}; a failure ends with {"type":"error","message","exit_code"}',
    args: { min: 0, max: Number.POSITIVE_INFINITY },
  },
  async () => (await import("./run.ts")).runCommand,
);
