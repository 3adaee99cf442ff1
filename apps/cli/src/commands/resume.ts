/** `plugboard resume [N|ID]`: the kept conversations of this config and workspace, or one of them continued. */
import type { ParsedArgs } from "../args.ts";
import { listConversations, sessionsFolder } from "../conversations.ts";
import type { Io } from "../io.ts";
import { printConversations } from "../kept-sessions.ts";
import { loadConfigOnly } from "../load-app.ts";
import { interactiveCommand } from "./interactive.ts";

/** Lists the conversations (no argument) or continues the one named; returns the exit code. */
export async function resumeCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const [choice] = parsed.args;
  if (choice !== undefined) return interactiveCommand(parsed, io, { choice });
  // The list needs only the config's path and its workspace: no plugin is loaded for it.
  const { config, workspace } = await loadConfigOnly(parsed, io);
  const folder = sessionsFolder(io.env);
  const { conversations, unreadable } = listConversations(folder, { config: config.configPath, workspace: workspace.root });
  if (unreadable > 0) io.note(`${unreadable} file(s) in ${folder} are not conversations Plugboard kept; they are left out`);
  printConversations(conversations, io, "plugboard resume N or plugboard resume ID continues one.");
  return 0;
}
