/**
 * The `bash` tool: runs a command with `bash -c` in the workspace root and reports its
 * output and exit code. A non-zero exit is a normal result; timeouts and cancellation are
 * errors, and both kill every process the command started.
 */
import { stat } from "node:fs/promises";
import { defineTool, errorResult, PluginOptionsError, type ResultsFile, resultCutLine, textResult, type ToolResult, Type } from "@plugboard/core";
import type { Options } from "./index.ts";
import { type OutputCap, shareBudget } from "./output-cap.ts";
import { OutputFile } from "./output-file.ts";
import { type RunOutcome, runCommand } from "./run-command.ts";

/** The model-facing texts of the bash tool, built in one place. */
const bashTexts = {
  noOutput: "(no output)",
  stderrMarker: "[stderr]",
  timedOut: (ms: number, output: string) => errorResult(`Command timed out after ${ms} ms\n${output}`),
  cancelled: () => errorResult("Command cancelled"),
  notStarted: (detail: string) => errorResult(`Could not start the command: ${detail}`),
  exited: (code: number) => `exit code: ${code}`,
  terminated: (signal: string) => `Terminated by ${signal}`,
} as const;

function parametersFor(limits: Readonly<Options>) {
  return Type.Object(
    {
      command: Type.String({ description: "The shell command to run, e.g. `ls -la src` or `bun test 2>&1 | tail -20`." }),
      timeout_ms: Type.Optional(
        Type.Integer({
          minimum: 1,
          maximum: limits.maxTimeoutMs,
          description: `Kill the command after this many milliseconds (default ${limits.timeoutMs}, at most ${limits.maxTimeoutMs}).`,
        }),
      ),
    },
    { additionalProperties: false },
  );
}

/**
 * Builds the `bash` tool with the plugin's limits; the shell is `bash` when it is on the
 * PATH, else `/bin/sh`. Throws `PluginOptionsError` when `timeoutMs` exceeds `maxTimeoutMs`.
 */
export function bashTool(limits: Readonly<Options>) {
  if (limits.timeoutMs > limits.maxTimeoutMs) {
    throw new PluginOptionsError(
      `timeoutMs (${limits.timeoutMs}) must not exceed maxTimeoutMs (${limits.maxTimeoutMs}). Lower timeoutMs or raise maxTimeoutMs.`,
    );
  }
  const shell = Bun.which("bash") ?? "/bin/sh";
  return defineTool({
    name: "bash",
    description:
      // The first sentence is the manifest's description (plugboard plugin sync): the same on every machine.
      "Run a shell command in the workspace root and return its stdout, stderr and exit code. " +
      `It runs with ${shell === "/bin/sh" ? "sh" : "bash"} -c, stdin closed. ` +
      `Output over ${limits.maxOutputChars} characters keeps its start and end. ` +
      "Every process the command starts is killed when it returns, times out or is cancelled, so do not leave servers running in the background.",
    parameters: parametersFor(limits),
    // A command's effects cannot be named: it runs alone.
    concurrency: "serial",
    handler: async ({ command, timeout_ms }, ctx): Promise<ToolResult> => {
      if (ctx.signal.aborted) return bashTexts.cancelled();
      const timeoutMs = timeout_ms ?? limits.timeoutMs;
      // With a results file, what is cut goes there, and what is kept fits the model's share whole.
      const limit = ctx.results === undefined ? limits.maxOutputChars : Math.min(limits.maxOutputChars, roomFor(ctx.results));
      const file = ctx.results === undefined ? undefined : new OutputFile(ctx.workspace.root, ctx.results, limit);
      let outcome: RunOutcome;
      try {
        outcome = await runCommand(command, { shell, cwd: ctx.workspace.root, timeoutMs, maxOutputChars: limit, signal: ctx.signal, ...(file ? { file } : {}), ...(ctx.progress ? { progress: ctx.progress } : {}) });
      } catch (error) {
        await file?.finish(false);
        return bashTexts.notStarted(await whyNotStarted(error, ctx.workspace.root));
      }
      const cut = outcome.ending !== "cancelled" && outcome.stdout.total + outcome.stderr.total > limit;
      const saved = await file?.finish(cut);
      if (outcome.ending === "cancelled") return bashTexts.cancelled();
      const output = formatOutput(outcome, limit, saved);
      if (outcome.ending === "timed_out") return bashTexts.timedOut(timeoutMs, output);
      return textResult(`${output}\n${exitLine(outcome)}`);
    },
  });
}

/**
 * Characters of output that fit `results.maxBytes` with the two cut lines, the stderr marker
 * and the last line, counted as bytes (multi-byte text may still pass it: the runtime then cuts it again).
 */
function roomFor(results: ResultsFile): number {
  const line = Buffer.byteLength(resultCutLine(results.maxFileBytes * 16, results.path)) + 2;
  return Math.max(0, results.maxBytes - 2 * line - 100);
}

/**
 * stdout, then stderr under a marker line, sharing the output cap; `(no output)` when both are
 * empty. What is cut is marked by its characters, or by its bytes and the file `saved` holding it.
 */
function formatOutput({ stdout, stderr }: RunOutcome, limit: number, saved: string | undefined): string {
  const [outBudget, errBudget] = shareBudget(stdout.total, stderr.total, limit);
  const out = withoutFinalNewline(stdout.text(outBudget, ...markerOf(stdout, saved)));
  const err = withoutFinalNewline(stderr.text(errBudget, ...markerOf(stderr, saved)));
  if (stdout.total === 0 && stderr.total === 0) return bashTexts.noOutput;
  const sections = stdout.total > 0 ? [out] : [];
  if (stderr.total > 0) sections.push(bashTexts.stderrMarker, err);
  return sections.join("\n");
}

/** The cut line of a stream whose whole output is in `saved`: the bytes it cut, and the file. */
function markerOf(stream: OutputCap, saved: string | undefined): [] | [(cutChars: number, kept: string) => string] {
  if (saved === undefined) return [];
  return [(_cutChars, kept) => `\n${resultCutLine(stream.totalBytes - Buffer.byteLength(kept), saved)}\n`];
}

/** posix_spawn blames the shell when the folder to run in is gone; say what is really missing. */
async function whyNotStarted(error: unknown, cwd: string): Promise<string> {
  const isFolder = await stat(cwd).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!isFolder) return `the workspace folder ${cwd} does not exist`;
  return error instanceof Error ? error.message : String(error);
}

/** `exit code: N`, or `Terminated by SIGNAME` when a signal (`kill -TERM $$`, say) ended the shell. */
function exitLine({ exitCode, signalName }: RunOutcome): string {
  return exitCode === null ? bashTexts.terminated(signalName ?? "an unknown signal") : bashTexts.exited(exitCode);
}

function withoutFinalNewline(text: string): string {
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}
