/** `plugboard trust`: what it accepts and what its help says; its handler, in trust.ts, is imported when it runs. */
import { defineCommand } from "./command.ts";

export default defineCommand(
  {
    name: "trust",
    usage: "plugboard trust FILE...",
    summary: "read a config, .env or lock file again that appeared or changed while plugins could write its folder",
    details: [
      "Plugboard records when confined plugins may write a workspace, and does not read the config, the .env beside it, a config found in the current folder",
      "or the lock file when it, or a link on its way, was created or changed (its ctime: written, renamed, linked, chmoded) in such a time: a plugin may have",
      "written it (the sandbox cannot keep a file that does not exist yet, or one renamed or linked into place, read-only), so it says so and exits 2.",
      "What plugboard writes itself (a rule saved with p, pins, plugin add) is read; your own edit made while a session ran is refused too.",
      "Look at the file; if it is yours, trust it with this command and it is read again. A later change to it, or to a link on its way, is checked again.",
      "The record is the folder $XDG_STATE_HOME/plugboard/writable-spans/ (else ~/.local/state/plugboard/), which no plugin can write.",
    ],
    flags: [],
    args: { min: 1, max: Number.POSITIVE_INFINITY },
  },
  async () => (await import("./trust.ts")).trustCommand,
);
