/**
 * Who answers when the config's policy says `ask`: the person at the terminal, everyone
 * (`--yes`, and `plugboard call`, which is the person's own call), or no one (no terminal:
 * the runtime then refuses with the text that says how to allow it). An "always" answer is
 * passed back to the runtime, which remembers it as a rule for the rest of the session
 * (`a`: this tool; `c`: bash commands like this one, the rule the runtime offers); `p` also
 * saves that rule to the config file, its comments and layout kept. A question asked because of
 * the session's taint offers only yes and no. A call the sandbox refused
 * for lack of a grant its plugin may be given is offered again with that grant (`askGrant`).
 */
import { readFile, writeFile } from "node:fs/promises";
import { addPolicyRule } from "@plugboard/config";
import { plantedRecordFile, writeTrusted } from "@plugboard/sandbox/planted-files";
import type { ApprovalAnswer, ApprovalRequest, Approver, DerivedCommandRule, Policy, PolicyRule, RefusedCall } from "@plugboard/runtime";
import { approveAll, describeGrant, rowMark, wildcardMatch } from "@plugboard/runtime";
import { plural, visible } from "@plugboard/core/internal";
import type { Io } from "./io.ts";
import { readKey, readLine } from "./terminal-input.ts";

/** How asks are answered in this session. */
export type ApprovalMode = "terminal" | "yes" | "none";

/** A session's approvals: who answers. What its "always" answers allow, the runtime remembers. */
export interface Approvals {
  readonly mode: ApprovalMode;
}

/**
 * `--yes` approves everything (but a tainted session's calls, which a person at a terminal
 * still answers); otherwise a terminal (stdin and stderr) asks the person, and without one no
 * one is asked.
 */
export function createApprovals(yes: boolean, io: Io): Approvals {
  return { mode: yes ? "yes" : atTerminal(io) ? "terminal" : "none" };
}

function atTerminal(io: Io): boolean {
  return io.stdin.isTTY === true && io.stderr.isTTY === true;
}

/** What a prompt does to the rest of the screen: the reporter stops its spinner and holds its lines meanwhile. */
export interface Screen {
  pause(): void;
  resume(): void;
}

/** Where a rule is saved: the app's config, when the person may edit it. */
export interface ApprovalContext {
  /** The config file `p` saves a rule to, with the policy it was loaded with; absent (the shipped config): session only. */
  readonly config?: { readonly path: string; readonly policy: Policy };
}

/** Approves every call: `--yes` and `plugboard call` (the runtime's, which it offers no rule, so no bash line is read for it). */
export { approveAll };

/**
 * The approver of one turn, or undefined when no one can be asked. The runtime asks through
 * it one call at a time, in the order the calls asked, and only about calls no rule the
 * session remembered allows.
 */
export function approverFor(approvals: Approvals, io: Io, screen: Screen, context: ApprovalContext): Approver | undefined {
  if (approvals.mode === "none") return undefined;
  if (approvals.mode === "yes" && !atTerminal(io)) return approveAll;
  const person: Approver = async (request, signal) => {
    screen.pause();
    try {
      return await askPerson(request, io, context, signal);
    } finally {
      screen.resume();
    }
  };
  if (approvals.mode === "terminal") return person;
  // --yes at a terminal: the person answers only for calls of a tainted session (the runtime's taint).
  const tainted: Approver = (request, signal) => (request.tainted ? person(request, signal) : approveAll(request, signal));
  return Object.assign(tainted, { asks: "person if tainted" as const });
}

async function askPerson(request: ApprovalRequest, io: Io, context: ApprovalContext, signal: AbortSignal): Promise<ApprovalAnswer> {
  if (request.refused !== undefined) return askGrant(request, request.refused, io, context, signal);
  const { style } = io;
  const derived = request.commands;
  const lines = [`${style.tool(`allow ${visible(request.tool)}?`)}`, ...describeCall(request).map((line) => `  ${visible(line)}`)];
  if (request.tainted) lines.push(`  ${visible(`asked because untrusted content from ${request.tainted.by} entered the conversation, and ${request.tool} can send data out`)}`);
  const like = derived ? `  [c] always commands like ${visible(derived.pattern)}` : "";
  // Asked because of the taint, which no remembered answer passes: yes or no, nothing to keep.
  const always = request.tainted ? "" : `  [a] always ${visible(request.tool)} this session${like}`;
  const keys = request.tainted ? ["y", "n"] : derived ? ["y", "a", "c", "n"] : ["y", "a", "n"];
  const key = await readKey(io.stdin, keys, signal, () => io.stderr.write(`${lines.join("\n")}\n${style.dim(`[y] yes${always}  [n] no`)} › `)).catch((error: unknown) => {
    io.stderr.write("cancelled\n");
    throw error;
  });
  if (key === "y") {
    io.stderr.write("yes\n");
    return { decision: "allow" };
  }
  if (key === "a") {
    io.stderr.write(`always (${visible(request.tool)}, until the session ends)\n`);
    return { decision: "allow", always: "tool" };
  }
  if (key === "c" && derived) {
    await offerCommands(request.tool, derived, io, context, signal);
    return { decision: "allow", always: "commands" };
  }
  io.stderr.write("no\n");
  const reason = (await readLine(io.stdin, io.stderr, style.dim("reason for the model (optional, Enter to skip) › "), signal)).trim();
  return { decision: "deny", ...(reason === "" ? {} : { reason }) };
}

/**
 * Shows the rule the runtime offers, then the person keeps it for the session (`s`: the
 * runtime remembers it) or also saves it to the config (`p`); this call is allowed either way.
 */
async function offerCommands(tool: string, derived: DerivedCommandRule, io: Io, context: ApprovalContext, signal: AbortSignal): Promise<void> {
  const rule: PolicyRule = { tool, args: { command: derived.pattern }, action: "allow" };
  const written = `{ "tool": ${JSON.stringify(tool)}, "args": { "command": ${JSON.stringify(derived.pattern)} }, "action": "allow" }`;
  const save = context.config ? `  [p] save to ${context.config.path}` : "";
  const key = await readKey(io.stdin, context.config ? ["s", "p"] : ["s"], signal, () =>
    io.stderr.write(`commands like this\n  rule: ${visible(written)}\n${io.style.dim(`[s] this session${save}`)} › `),
  );
  if (key === "s" || !context.config) {
    io.stderr.write("this session\n");
    return;
  }
  const { path, policy } = context.config;
  // Before the first rule that would judge this command otherwise (a deny stays in force), else at the end.
  const index = policy.rules.findIndex(
    (other) =>
      other.action !== "deny" &&
      wildcardMatch(other.tool, tool) &&
      (other.args?.command === undefined || wildcardMatch(other.args.command, derived.command)),
  );
  const text = addPolicyRule(await readFile(path, "utf8"), rule, index);
  // The app's own write: the next start does not take it for a plugin's.
  await writeTrusted(plantedRecordFile(io.env), path, () => writeFile(path, text));
  io.stderr.write(`saved to ${path}\n`);
}

/**
 * A call the sandbox refused: run it again with exactly the missing grant — once, for the
 * session, or saved to the config too (`p`, when the person may edit it) — or leave the
 * refusal as the model got it (`n`).
 */
async function askGrant(request: ApprovalRequest, refused: RefusedCall, io: Io, context: ApprovalContext, signal: AbortSignal): Promise<ApprovalAnswer> {
  const { style } = io;
  const lines = [
    style.tool(`${visible(request.tool)} was refused by the sandbox; run it again with this grant to ${visible(refused.owner)}?`),
    ...describeCall(request).map((line) => `  ${visible(line)}`),
    `  grant: ${visible(describeGrant(refused.grant))}`,
  ];
  const save = context.config ? `  [p] save to ${context.config.path}` : "";
  const key = await readKey(io.stdin, context.config ? ["o", "s", "p", "n"] : ["o", "s", "n"], signal, () =>
    io.stderr.write(`${lines.join("\n")}\n${style.dim(`[o] once  [s] this session${save}  [n] no`)} › `),
  ).catch((error: unknown) => {
    io.stderr.write("cancelled\n");
    throw error;
  });
  const answers: Record<string, [string, ApprovalAnswer]> = {
    o: ["once", { decision: "allow", grant: "once" }],
    s: ["this session", { decision: "allow", grant: "session" }],
    p: [`saved to ${context.config?.path ?? ""}`, { decision: "allow", grant: "saved" }],
  };
  const [said, answer] = answers[key] ?? ["no", { decision: "deny" }];
  io.stderr.write(`${said}\n`);
  return answer;
}

/**
 * The call as the prompt shows it: a command in full, a write's path and size, and for a
 * write or an edit the change the runtime worked out (a diff, or the head of a new file);
 * other tools' arguments one per line.
 */
export function describeCall({ tool, arguments: args, change }: ApprovalRequest): string[] {
  const text = (key: string) => (typeof args[key] === "string" ? (args[key] as string) : undefined);
  const command = text("command");
  if (tool === "bash" && command !== undefined) return [`$ ${command}`, ...otherArgs(args, ["command"])];
  const rows = (change?.rows ?? []).map((row) => `${rowMark(row)} ${row.text}`);
  const path = text("path");
  const content = text("content");
  if (tool === "write_file" && path !== undefined && content !== undefined) {
    const lines = content.split("\n");
    const created = change?.kind === "create" ? ", a new file" : "";
    return [`write ${path} (${Buffer.byteLength(content)} bytes, ${lines.length} ${plural(lines.length, "line")})${created}`, ...rows];
  }
  if (tool === "edit_file" && path !== undefined && text("old_text") !== undefined && text("new_text") !== undefined) {
    const every = args.replace_all === true ? " (every occurrence)" : "";
    return [`edit ${path}${every}`, ...rows];
  }
  return otherArgs(args, []);
}

function otherArgs(args: Readonly<Record<string, unknown>>, skip: readonly string[]): string[] {
  return Object.entries(args)
    .filter(([key]) => !skip.includes(key))
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
}
