/**
 * The interactive session's conversations: the one in progress (kept as it grows), a new one
 * (`/clear`: history emptied, the taint ended) and a kept one resumed (`--continue`,
 * `plugboard resume`, `/resume`: its messages, its taint, a recap of the last exchange).
 */
import type { ModelClient, StartedApp } from "@plugboard/bootstrap";
import { plural, visible } from "@plugboard/core/internal";
import { DEFAULT_TAINT } from "@plugboard/runtime";
import {
  ConversationFile,
  type ConversationOwner,
  chooseConversation,
  describeConversations,
  type KeptConversation,
  listConversations,
  newConversationId,
  sessionsFolder,
  textOf,
} from "./conversations.ts";
import { type ConversationLock, lockConversation } from "./conversation-lock.ts";
import type { Io } from "./io.ts";
import { answerRenderer } from "./reporter.ts";
import type { Session } from "./session.ts";

/** The conversation in progress (locked: no other process continues it meanwhile) and the ways to change it. */
export interface Conversations {
  /** The conversation the next message goes to. */
  readonly session: Session;
  /** `/clear`: a new conversation, untainted; the last one stays kept. */
  fresh(): void;
  /** Continues `kept`: its messages and its taint; a `PlugboardError` when another process has it in progress. */
  resume(kept: KeptConversation): void;
  /** `/model NAME`: the model asked from now on, in this conversation and the next. */
  switchModel(name: string): void;
  /** The kept conversations of this config and workspace, the most recent first (a note counts unreadable files). */
  list(): KeptConversation[];
  /** The kept conversation `choice` names (a list number or an id); a `PlugboardError` when none. */
  choose(choice: string): KeptConversation;
}

/** Conversations of `app`, each new one opened by `open` (a fresh session: system message only). */
export function createConversations(app: StartedApp & { model: ModelClient }, open: () => Session, io: Io): Conversations {
  const folder = sessionsFolder(io.env);
  const owner: ConversationOwner = { config: app.config.configPath, workspace: app.workspace.root };
  let modelName: string | undefined;
  const model = () => modelName ?? app.config.model.name;
  let lock: ConversationLock | undefined;
  const start = (kept?: KeptConversation): Session => {
    const header = kept?.header ?? { plugboard: "conversation" as const, version: 1 as const, id: newConversationId(), created: new Date().toISOString(), ...owner, cwd: io.cwd, model: model() };
    // The conversation in progress is this process's alone: another resuming it is refused (a PlugboardError, before anything changes).
    if (folder !== undefined && lock?.id !== header.id) {
      const next = lockConversation(folder, header.id);
      lock?.release();
      lock = next;
    }
    const session = open();
    const file = folder === undefined ? undefined : new ConversationFile(folder, header, kept ? { messages: kept.messages.length, trimmed: kept.trimmed, ...(kept.taint ? { taint: kept.taint } : {}) } : undefined);
    if (kept) session.messages.push(...kept.messages);
    return { ...session, ...(modelName ? { modelName } : {}), ...(file ? { kept: file } : {}) };
  };
  let session = start();
  const conversations: Conversations = {
    get session() {
      return session;
    },
    fresh() {
      session = start();
      app.runtime.restoreTaint(undefined);
    },
    resume(kept) {
      session = start(kept);
      app.runtime.restoreTaint(kept.taint);
      recap(kept, io);
      const mode = app.config.policy.taint ?? DEFAULT_TAINT;
      if (kept.taint && mode !== "off") {
        io.note(`untrusted content from ${kept.taint.by} entered this conversation: calls that can send data out are ${mode === "ask" ? "asked about" : "refused"}`);
      }
    },
    switchModel(name) {
      modelName = name;
      session = { ...session, modelName: name };
    },
    list() {
      const { conversations: listed, unreadable } = listConversations(folder, owner);
      if (unreadable > 0) io.note(`${unreadable} file(s) in ${folder} are not conversations Plugboard kept; they are left out`);
      return listed;
    },
    choose(choice) {
      // Unreadable files are not counted here: the one chosen, if it is one, is named by the error.
      return chooseConversation(listConversations(folder, owner).conversations, folder ?? "", choice);
    },
  };
  return conversations;
}

/** Prints the kept conversations of this config and workspace, numbered, with how to resume one. */
export function printConversations(listed: readonly KeptConversation[], io: Io, how: string): void {
  if (listed.length === 0) {
    io.stdout.write("No kept conversations for this config and workspace.\n");
    return;
  }
  io.stdout.write(`${describeConversations(listed).join("\n")}\n${how}\n`);
}

/** Says which conversation goes on, its taint, and its last exchange (the last request and the last answer). */
function recap(kept: KeptConversation, io: Io): void {
  const requests = kept.messages.filter((message) => message.role === "user");
  io.note(`resumed conversation ${kept.header.id} (${requests.length} ${plural(requests.length, "request")}, started ${kept.header.created.slice(0, 16).replace("T", " ")})`);
  const request = requests.at(-1);
  const last = kept.messages.findLast((message) => message.role === "assistant" && textOf(message.content) !== "");
  // On a terminal what was typed or written cannot drive it: the request written out, the answer rendered as the reporter renders answers.
  if (request) io.stdout.write(`> ${io.stdout.isTTY === true ? visible(textOf(request.content)) : textOf(request.content)}\n`);
  if (last) {
    const shown = answerRenderer(io).answer(textOf(last.content));
    io.stdout.write(shown.endsWith("\n") ? shown : `${shown}\n`);
  }
}
