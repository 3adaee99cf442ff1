/** `plugboard run PROMPT`: one turn, then exit with the status as the exit code. */
import type { ParsedArgs } from "../args.ts";
import { UsageError } from "../args.ts";
import { abortOnInterrupt } from "../interrupt.ts";
import type { Io } from "../io.ts";
import { createApprovals } from "../approvals.ts";
import { createElicitation } from "../elicitation.ts";
import { failureOf } from "../failure.ts";
import { loadApp } from "../load-app.ts";
import { jsonLine } from "../output.ts";
import { askAboutChangedTools } from "../pinned-prompt.ts";
import { CUT_OFF, createSession, EMPTY_ANSWER, runTurn } from "../session.ts";

/**
 * Runs the prompt (from the arguments, else stdin) and returns the exit code. With `--json`
 * the last line on stdout says how the run ended: `final` when it answered, else an `error`
 * event with the message said on stderr and the exit code, whatever failed (the prompt, the
 * config, a plugin, the model endpoint, the step limit, an interrupt).
 */
export async function runCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const failed = (message: string, code: number): number => {
    io.note(message);
    if (parsed.flags.json) io.stdout.write(jsonLine({ type: "error", message, exit_code: code }));
    return code;
  };
  try {
    return await runPrompt(parsed, io, failed);
  } catch (error) {
    if (!parsed.flags.json) throw error;
    const { message, code } = await failureOf(error);
    return failed(message, code);
  }
}

async function runPrompt(parsed: ParsedArgs, io: Io, failed: (message: string, code: number) => number): Promise<number> {
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
  if (result.status === "empty") return failed(EMPTY_ANSWER, 3);
  if (result.status === "aborted") return failed("interrupted", interrupt.exitCode(130));
  return failed(
    `stopped after ${result.steps} model requests without an answer (the step limit); raise it with --max-steps N or maxSteps in the config`,
    1,
  );
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
