/**
 * Who answers when the config's policy says `ask`: the person at the terminal, everyone
 * (`--yes`, and `plugboard call`, which is the person's own call), or no one (no terminal:
 * the runtime then refuses with the text that says how to allow it). "Always" answers are
 * remembered per tool for the whole session.
 */
import type { ApprovalRequest, Approver } from "@plugboard/core/runtime";
import type { Io } from "./io.ts";
import { readKey, readLine } from "./terminal-input.ts";

/** How asks are answered in this session. */
export type ApprovalMode = "terminal" | "yes" | "none";

/** A session's approvals: the mode and the tools allowed for the rest of it. */
export interface Approvals {
  readonly mode: ApprovalMode;
  readonly always: Set<string>;
}

/** `--yes` approves everything; otherwise a terminal (stdin and stderr) asks the person, and without one no one is asked. */
export function createApprovals(yes: boolean, io: Io): Approvals {
  const mode = yes ? "yes" : io.stdin.isTTY === true && io.stderr.isTTY === true ? "terminal" : "none";
  return { mode, always: new Set() };
}

/** What a prompt does to the rest of the screen: the reporter stops its spinner and holds its lines meanwhile. */
export interface Screen {
  pause(): void;
  resume(): void;
}

/** Approves every call: `--yes` and `plugboard call`. */
export const approveAll: Approver = async () => ({ decision: "allow" });

/**
 * The approver of one turn, or undefined when no one can be asked. Prompts are shown one
 * at a time, in the order the calls asked.
 */
export function approverFor(approvals: Approvals, io: Io, screen: Screen): Approver | undefined {
  if (approvals.mode === "yes") return approveAll;
  if (approvals.mode === "none") return undefined;
  let queue: Promise<unknown> = Promise.resolve();
  return (request, signal) => {
    const answer = queue.then(async () => {
      if (approvals.always.has(request.tool)) return { decision: "allow" as const };
      // A call whose turn was cancelled while it waited for an earlier prompt is not asked about.
      if (signal.aborted) throw signal.reason;
      screen.pause();
      try {
        return await askPerson(request, io, approvals, signal);
      } finally {
        screen.resume();
      }
    });
    queue = answer.catch(() => {});
    return answer;
  };
}

async function askPerson(request: ApprovalRequest, io: Io, approvals: Approvals, signal: AbortSignal) {
  const { style } = io;
  const lines = [`${style.tool(`allow ${visible(request.tool)}?`)}`, ...describeCall(request).map((line) => `  ${visible(line)}`)];
  io.stderr.write(`${lines.join("\n")}\n${style.dim(`[y] yes  [a] always ${request.tool} this session  [n] no`)} › `);
  const key = await readKey(io.stdin, ["y", "a", "n"], signal).catch((error: unknown) => {
    io.stderr.write("cancelled\n");
    throw error;
  });
  if (key === "y") {
    io.stderr.write("yes\n");
    return { decision: "allow" as const };
  }
  if (key === "a") {
    io.stderr.write(`always (${request.tool}, until the session ends)\n`);
    approvals.always.add(request.tool);
    return { decision: "allow" as const, always: true };
  }
  io.stderr.write("no\n");
  const reason = (await readLine(io.stdin, io.stderr, style.dim("reason for the model (optional, Enter to skip) › "), signal)).trim();
  return { decision: "deny" as const, ...(reason === "" ? {} : { reason }) };
}

const PREVIEW_LINES = 20;

/**
 * The call as the prompt shows it: a command in full, a write's path and size, an edit's
 * diff; other tools' arguments one per line.
 */
export function describeCall({ tool, arguments: args }: ApprovalRequest): string[] {
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  const command = text("command");
  if (tool === "bash" && command !== undefined) return [`$ ${command}`, ...otherArgs(args, ["command"])];
  const path = text("path");
  const content = text("content");
  if (tool === "write_file" && path !== undefined && content !== undefined) {
    const lines = content.split("\n");
    return [`write ${path} (${Buffer.byteLength(content)} bytes, ${lines.length} line${lines.length === 1 ? "" : "s"})`];
  }
  const oldText = text("old_text");
  const newText = text("new_text");
  if (tool === "edit_file" && path !== undefined && oldText !== undefined && newText !== undefined) {
    const every = args.replace_all === true ? " (every occurrence)" : "";
    return [`edit ${path}${every}`, ...diffLines("-", oldText), ...diffLines("+", newText)];
  }
  return otherArgs(args, []);
}

/**
 * Control characters shown as escapes (`\x1b`), line breaks and tabs kept: a model cannot
 * hide part of a command from the person with terminal escape sequences or carriage returns.
 */
export function visible(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

function diffLines(sign: string, text: string): string[] {
  const lines = text.split("\n");
  const shown = lines.slice(0, PREVIEW_LINES).map((line) => `${sign} ${line}`);
  return lines.length > PREVIEW_LINES ? [...shown, `${sign} … (${lines.length - PREVIEW_LINES} more lines)`] : shown;
}

function otherArgs(args: Readonly<Record<string, unknown>>, skip: readonly string[]): string[] {
  return Object.entries(args)
    .filter(([key]) => !skip.includes(key))
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
}
