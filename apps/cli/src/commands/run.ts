/** `plugboard run PROMPT`: one turn, then exit with the status as the exit code. */
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import { abortOnInterrupt } from "../interrupt.ts";
import type { Io } from "../io.ts";
import { createApprovals } from "../approvals.ts";
import { createElicitation } from "../elicitation.ts";
import { loadApp } from "../load-app.ts";
import { askAboutChangedTools } from "../pinned-prompt.ts";
import { CUT_OFF, createSession, EMPTY_ANSWER, runTurn } from "../session.ts";

/** Runs the prompt (from the arguments, else stdin) and returns the exit code. */
export async function runCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const prompt = await promptOf(parsed.args, io);
  const elicitation = createElicitation(io);
  const changedTools = askAboutChangedTools(io);
  const app = await loadApp(parsed, io, { announceWorkspace: true, model: true, elicit: elicitation.elicit, ...(changedTools ? { changedTools } : {}) });
  // The hosts start while the model thinks, not at its first tool call.
  app.warmUp();
  const session = createSession(app, app.model, createApprovals(parsed.flags.yes, io), elicitation);
  using interrupt = abortOnInterrupt();
  const result = await runTurn(session, prompt, io, { signal: interrupt.signal, json: parsed.flags.json });
  if (result.status === "answered") {
    if (result.cutOff) io.note(CUT_OFF);
    return 0;
  }
  if (result.status === "empty") {
    io.note(EMPTY_ANSWER);
    return 3;
  }
  if (result.status === "aborted") {
    io.note("interrupted");
    return interrupt.exitCode(130);
  }
  io.note(
    `stopped after ${result.steps} model requests without an answer (the step limit); raise it with --max-steps N or maxSteps in the config`,
  );
  return 1;
}

async function promptOf(args: readonly string[], io: Io): Promise<string> {
  if (args.length > 0) {
    const prompt = args.join(" ");
    if (prompt.trim() === "") throw new UsageError("run needs a PROMPT, but the one given is blank", "run");
    return prompt;
  }
  if (io.stdin.isTTY) throw new UsageError("run needs a PROMPT, as arguments or on stdin", "run");
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk));
  const prompt = Buffer.concat(chunks).toString("utf8").trim();
  if (prompt === "") throw new UsageError("run needs a PROMPT, but stdin was empty", "run");
  return prompt;
}
