/**
 * `plugboard`: a conversation at the `plugboard >> ` prompt. Ctrl-C cancels the turn in
 * flight (the loop's signal; a running bash tool kills every process it started) and quits
 * with 130 at the prompt; SIGTERM and SIGHUP cancel the turn in flight and quit with 143 /
 * 129. Works the same when stdin is a pipe.
 */
import { PlugboardError } from "@plugboard/bootstrap";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { onEndingSignal, SIGNAL_EXIT_CODES } from "../interrupt.ts";
import { createLineReader } from "../line-reader.ts";
import { createApprovals } from "../approvals.ts";
import { createElicitation } from "../elicitation.ts";
import { loadApp } from "../load-app.ts";
import { askAboutChangedTools } from "../pinned-prompt.ts";
import { type Conversations, createConversations } from "../kept-sessions.ts";
import { CUT_OFF, createSession, EMPTY_ANSWER, keepConversation, runTurn, type Session } from "../session.ts";
import { runSlashCommand, slashCommand } from "../slash-commands.ts";
import { sayWhenAPluginEndsIt } from "../stray-errors.ts";

/** The prompt shown before each request. */
export const PROMPT = "plugboard >> ";

const QUIT = new Set(["", "q", "exit"]);

/** Which kept conversation the session continues: the latest of this config and workspace (`--continue`), or one named (`plugboard resume ID`). */
export type Continuing = { readonly latest: true } | { readonly choice: string };

/** Runs the session until the user quits; returns the exit code. */
export async function interactiveCommand(parsed: ParsedArgs, io: Io, continuing?: Continuing): Promise<number> {
  // Before the app starts: keys typed meanwhile are the first message, and answer no question the start asks.
  const lines = createLineReader(io.stdin, io.stderr, PROMPT);
  let started = false;
  let turn: AbortController | undefined;
  let exitCode = 0;
  const interrupt = () => {
    // A second Ctrl-C while the cancelled turn is still winding down gives up on it.
    if (turn?.signal.aborted) process.exit(130);
    if (turn) {
      turn.abort();
      return;
    }
    exitCode = 130;
    lines.close();
  };
  // SIGTERM and SIGHUP end the session: the turn in flight is cancelled first.
  const terminate = (signal: "SIGTERM" | "SIGHUP") => {
    if (exitCode !== 0) process.exit(SIGNAL_EXIT_CODES[signal]);
    exitCode = SIGNAL_EXIT_CODES[signal];
    turn?.abort();
    lines.close();
  };
  // A terminal's Ctrl-C reaches readline as a key; a signal (kill -INT, a pipe) reaches the process.
  lines.onInterrupt(interrupt);
  const release = onEndingSignal((signal) => {
    // While the app starts there is nothing to cancel: the process ends (its exit gives the terminal its modes back).
    if (!started) process.exit(SIGNAL_EXIT_CODES[signal]);
    if (signal === "SIGINT") interrupt();
    else terminate(signal);
  });
  let conversations: Conversations | undefined;
  try {
    const elicitation = createElicitation(io);
    const changedTools = askAboutChangedTools(io);
    const app = await loadApp(parsed, io, { announceWorkspace: true, model: true, elicit: elicitation.elicit, ...(changedTools ? { changedTools } : {}) });
    // The hosts start while the user types, not at the first tool call.
    app.warmUp();
    const approvals = createApprovals(parsed.flags.yes, io);
    conversations = createConversations(app, () => createSession(app, app.model, approvals, elicitation), io);
    // A plugin's bug that ends the session still says where the conversation is kept.
    const ongoing = conversations;
    sayWhenAPluginEndsIt(() => keptLine(ongoing));
    const resuming = continuing ?? (parsed.flags.continue === true ? { latest: true as const } : undefined);
    if (resuming) continueKept(conversations, resuming, io);
    started = true;
    for (;;) {
      const line = await lines.next();
      // A typed empty line (or `q`, `exit`) quits; a message of several lines never does, nor is a blank one sent.
      if (line === undefined || (!line.includes("\n") && QUIT.has(line.trim()))) break;
      if (line.trim() === "") continue;
      const command = slashCommand(line);
      if (command !== undefined) {
        if (runSlashCommand(command, { app, conversations, io }) === "exit") break;
        continue;
      }
      turn = new AbortController();
      await converse(conversations.session, line.trim(), io, turn.signal);
      turn = undefined;
    }
  } finally {
    release();
    lines.close();
  }
  const kept = keptLine(conversations);
  if (kept !== undefined) io.note(kept);
  return exitCode;
}

/** The line that says where the session's conversation is kept, once it has been written. */
function keptLine(conversations: Conversations): string | undefined {
  const { kept } = conversations.session;
  return kept?.written ? `conversation ${kept.id} is kept: plugboard --continue picks it up` : undefined;
}

/** Resumes the kept conversation asked for; with none kept, `--continue` starts a new one and says so. */
function continueKept(conversations: Conversations, continuing: Continuing, io: Io): void {
  if ("choice" in continuing) {
    conversations.resume(conversations.choose(continuing.choice));
    return;
  }
  const latest = conversations.list()[0];
  if (latest) conversations.resume(latest);
  else io.note("no kept conversation for this config and workspace: a new one starts");
}

/** One turn; an endpoint failure is reported and the session goes on without that turn. */
async function converse(session: Session, prompt: string, io: Io, signal: AbortSignal): Promise<void> {
  const before = session.messages.length;
  try {
    const result = await runTurn(session, prompt, io, { signal, json: false });
    if (result.status === "aborted") io.note("cancelled");
    if (result.status === "step_limit") io.note(`stopped after ${result.steps} model requests (the step limit)`);
    if (result.status === "empty") io.note(EMPTY_ANSWER);
    if (result.cutOff) io.note(CUT_OFF);
  } catch (error) {
    if (!(error instanceof PlugboardError) || error.code !== "MODEL_ENDPOINT") throw error;
    io.note(error.message);
    session.messages.length = before;
    keepConversation(session, io);
  }
}
