/**
 * The interactive session's own commands, answered here and never sent to the model. A
 * message is a command when it is one line made of `/`, a lowercase word and, after a space,
 * its argument: `/help`, `/resume 2`. `/etc/hosts is weird` or `/Users…` is a message.
 */
import { PlugboardError, type ModelClient, type StartedApp } from "@plugboard/bootstrap";
import { visible } from "@plugboard/core/internal";
import { TOOL_SEARCH } from "@plugboard/runtime";
import { describeTool } from "./commands/tools.ts";
import type { Io } from "./io.ts";
import { type Conversations, printConversations } from "./kept-sessions.ts";

/** The commands, as `/help` and an unknown command list them. */
export const SLASH_COMMANDS = [
  ["/help", "these commands and keys"],
  ["/clear", "start a new conversation (the last one stays kept; its taint ends with it)"],
  ["/tools", "the tools the model is sent"],
  ["/model [NAME]", "the model, endpoint and dialect in use; with NAME, ask that model for the rest of the session"],
  ["/resume [N|ID]", "list the kept conversations of this config and workspace; with a number or id, continue that one"],
  ["/exit", "end the session (the conversation is kept: plugboard --continue picks it up)"],
] as const;

/** The keys of the session, as `/help` lists them. */
export const SESSION_KEYS = [
  ["Enter", "send the message; an empty line, q, exit or Ctrl-D ends the session"],
  ["Alt+Enter, Shift+Enter, \\ Enter", "a new line in the message (a paste is one message, blank lines included)"],
  ["Ctrl-C", "cancel the turn in flight; clear a message being typed; at an empty prompt, end the session"],
  ["Up, Down", "earlier messages"],
] as const;

/** A message read as a command: its name (without the slash) and what follows it. */
export interface SlashCommand {
  readonly name: string;
  readonly argument: string;
}

/** The command `message` is, or undefined for a message to send to the model. */
export function slashCommand(message: string): SlashCommand | undefined {
  const match = /^\/([a-z]+)(?:[ \t]+([^\n]*))?$/.exec(message.trimEnd());
  if (!match?.[1]) return undefined;
  return { name: match[1], argument: (match[2] ?? "").trim() };
}

/** What a command needs: the app, the conversations, the streams. */
export interface SlashContext {
  readonly app: StartedApp & { model: ModelClient };
  readonly conversations: Conversations;
  readonly io: Io;
}

/** Runs `command`; "exit" when it ends the session. */
export function runSlashCommand(command: SlashCommand, context: SlashContext): "exit" | undefined {
  const { io, conversations } = context;
  const print = (text: string) => io.stdout.write(`${text}\n`);
  switch (command.name) {
    case "help":
      print(["Commands:", ...table(SLASH_COMMANDS), "Keys:", ...table(SESSION_KEYS)].join("\n"));
      return undefined;
    case "exit":
      return "exit";
    case "clear":
      conversations.fresh();
      io.note("a new conversation: the model sees none of the earlier messages");
      return undefined;
    case "tools":
      print(toolsSent(context.app));
      return undefined;
    case "model":
      if (command.argument !== "") {
        conversations.switchModel(command.argument);
        io.note(`model ${visible(command.argument)} for the rest of the session (the endpoint and dialect stay)`);
      }
      print(modelLine(context.app, conversations));
      return undefined;
    case "resume":
      resume(command.argument, context);
      return undefined;
    default:
      io.note(`unknown command /${command.name}; the commands are ${SLASH_COMMANDS.map(([usage]) => usage.split(" ")[0]).join(", ")} (/help says more); to send the model a message that starts with /, type a space before it`);
      return undefined;
  }
}

function resume(choice: string, { conversations, io }: SlashContext): void {
  if (choice === "") {
    printConversations(conversations.list(), io, "/resume N or /resume ID continues one.");
    return;
  }
  try {
    conversations.resume(conversations.choose(choice));
  } catch (error) {
    if (!(error instanceof PlugboardError)) throw error;
    io.note(error.message);
  }
}

function modelLine(app: StartedApp & { model: ModelClient }, conversations: Conversations): string {
  const name = conversations.session.modelName ?? app.config.model.name;
  if (app.model.demo) return "the offline demo model (no MODEL_API_KEY or BASE_URL is set)";
  return `model ${visible(name)} at ${app.model.endpoint.baseURL} (dialect ${app.config.model.dialect})`;
}

/** The tools a request carries: every one, or (over `tools.searchOver`) the tool search and the pinned tools. */
function toolsSent(app: StartedApp): string {
  const tools = app.runtime.schemas();
  if (tools.length === 0) return "No tools are enabled: add plugins to the config's plugins list.";
  const { searchOver, pinned } = app.runtime.toolSearch;
  const brief = (name: string) => tools.find((tool) => tool.function.name === name);
  if (tools.length <= searchOver) return visible(tools.map((tool) => describeTool(tool)).join("\n"));
  const sent = pinned.map(brief).filter((tool) => tool !== undefined);
  return visible(
    [
      ...sent.map((tool) => describeTool(tool)),
      `${tools.length} tools are enabled, more than tools.searchOver (${searchOver}): the model is sent ${TOOL_SEARCH}${sent.length > 0 ? ", the pinned tools above" : ""} and the tools its searches found in this conversation.`,
    ].join("\n"),
  );
}

function table(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
