/**
 * The question the `plugboard` session and `run` ask on a terminal, once per pinned tool that
 * changed since plugboard.lock.json pinned it: offer it to the model (and pin it as it is
 * now), or keep it withheld. Read through the same terminal handling as the approvals
 * (terminal-input.ts); without a terminal there is no question and the tool stays withheld,
 * said on stderr with how to accept it.
 */
import type { ChangedTools, CodeChange, ToolChange } from "@plugboard/bootstrap";
import { visible } from "@plugboard/core/internal";
import type { Io } from "./io.ts";
import { readKey } from "./terminal-input.ts";

const NEVER = new AbortController().signal;

/** How the session handles changed tools: asked on a terminal (stdin and stderr), else undefined (withheld). */
export function askAboutChangedTools(io: Io): ChangedTools | undefined {
  if (io.stdin.isTTY !== true || io.stderr.isTTY !== true) return undefined;
  return { ask: (change) => ask(change, io) };
}

async function ask(change: ToolChange | CodeChange, io: Io): Promise<boolean> {
  const { style } = io;
  const choices = change.what === "code" ? "[y] load it and pin its files as they are now  [n] do not load it" : "[y] offer it to the model and pin it as it is now  [n] keep it withheld";
  const lines = change.what === "code" ? describeCodeChange(change) : describeChange(change);
  const key = await readKey(io.stdin, ["y", "n"], NEVER, () => io.stderr.write(`${lines.map(visible).join("\n")}\n${style.dim(choices)} › `));
  io.stderr.write(key === "y" ? "yes\n" : `no (accept it later: plugboard plugin accept ${visible(change.source)})\n`);
  return key === "y";
}

/** A plugin's changed code as the prompt shows it: which plugin, where, and each file that differs. */
export function describeCodeChange(change: CodeChange): string[] {
  const head = change.shadows
    ? `${change.directory} is installed as ${change.source}, which plugboard ships, but its files are not the shipped ones:`
    : `the code of ${change.source} (${change.directory}) changed since plugboard.lock.json pinned it:`;
  return [
    head,
    ...change.changed.map((file) => `  changed: ${file}`),
    ...change.added.map((file) => `  added:   ${file}`),
    ...change.removed.map((file) => `  removed: ${file}`),
  ];
}

/** The change as the prompt shows it: which tool of which server or plugin, its description then and now, and what the scan flagged in it. */
export function describeChange(change: ToolChange): string[] {
  const { source, tool, what, pinned, now } = change;
  const flagged = change.flags.map((reason) => `  flagged: ${reason}`);
  if (pinned === undefined) return [`${source} has a new tool ${tool}, not pinned in plugboard.lock.json:`, `  ${now.description}`, ...flagged];
  const lines = [`the ${what} of ${source}'s tool ${tool} changed since plugboard.lock.json pinned it:`];
  if (pinned.description !== now.description) lines.push(`  was: ${pinned.description}`, `  now: ${now.description}`);
  if (pinned.schema !== now.schema) lines.push("  its input schema is not the one pinned");
  return [...lines, ...flagged];
}
