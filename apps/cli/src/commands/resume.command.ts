/** `plugboard resume`: what it accepts and what its help says; its handler, in resume.ts, is imported when it runs. */
import { MODEL_FLAGS } from "../flags.ts";
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "resume",
    usage: "plugboard resume [flags] [N|ID]",
    summary: "continue a kept conversation (with none given: list them)",
    details: [
      "Lists the conversations kept for this config and workspace, the most recent first, numbered; `plugboard resume N` or `plugboard resume ID` (or the start of an id) continues that one in the interactive session, after a recap of its last exchange.",
      "A resumed conversation keeps its taint: when untrusted content had entered it, calls that can send data out are still asked about (or refused, as the policy's \"taint\" says).",
      "Conversations are kept under $XDG_STATE_HOME/plugboard/sessions/ (else ~/.local/state/plugboard/sessions/), one file per conversation, readable by you alone.",
    ],
    flags: [...MODEL_FLAGS, "yes"],
    args: { min: 0, max: 1 },
  },
  async () => (await import("./resume.ts")).resumeCommand,
);
