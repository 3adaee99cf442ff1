/** `plugboard`: what it accepts and what its help says; its handler, in interactive.ts, is imported when it runs. */
import { MODEL_FLAGS } from "../flags.ts";
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "interactive",
    usage: "plugboard [flags]",
    summary: "chat with the model in a loop (the default command)",
    details: [
      "Reads one message at a time at the `plugboard >> ` prompt and keeps the conversation across turns.",
      "Enter sends; Alt+Enter, Shift+Enter, Ctrl-J or a `\\` before Enter start a new line; a paste is one message, blank lines included. What is typed during a turn waits for the next prompt.",
      "`q`, `exit`, `/exit`, an empty line or Ctrl-D quits; Ctrl-C cancels the turn in flight, clears a message being typed, and quits at an empty prompt.",
      "`/help`, `/clear` (a new conversation), `/tools`, `/model [NAME]`, `/resume [N|ID]` and `/exit` are answered by plugboard, never sent to the model: a message that is one line of `/`, a lowercase word and its arguments; `/help` lists them.",
      "Each conversation is kept as it goes (JSON lines, 0600, under $XDG_STATE_HOME/plugboard/sessions/, else ~/.local/state/plugboard/sessions/): --continue picks up the latest of this config and workspace, `plugboard resume` any of them; a resumed conversation keeps its taint.",
      "A call the config's policy asks about shows the tool and its arguments: `y` allows it once, `a` allows the tool for the rest of the session, `c` allows bash commands like it (a rule from its leading words, shown first: `s` this session, `p` saved to the config), `n` refuses it (then an optional reason for the model); Ctrl-C cancels the turn.",
    ],
    flags: [...MODEL_FLAGS, "yes", "continue"],
    args: { min: 0, max: 0 },
  },
  async () => (await import("./interactive.ts")).interactiveCommand,
);
