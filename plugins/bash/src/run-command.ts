/**
 * Runs one shell command in its own process group — and, where the kernel allows, its own
 * PID namespace, under core's init — and captures its output within a cap. Everything the
 * command started is killed with SIGKILL on timeout, on abort, and when the shell exits (so
 * background jobs, daemons and `setsid` children never outlive the call).
 */
import { drainPipes, type GroupEnding, killGroup, PIPE_GRACE_MS, pidNamespacePrefix, readEnding, settlesWithin, superviseGroup, underInit } from "@plugboard/core/process";
import { OutputCap } from "./output-cap.ts";
import type { OutputFile, Spill } from "./output-file.ts";

export interface RunOptions {
  /** The shell binary; the command runs as `SHELL -c COMMAND`. */
  readonly shell: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  /** Characters each stream keeps (head and tail). */
  readonly maxOutputChars: number;
  readonly signal: AbortSignal;
  /** Where the whole output goes as it streams, when the call has a results file. */
  readonly file?: OutputFile;
  /** Told each piece of output (stdout and stderr) as it comes, for a person watching. */
  readonly progress?: (text: string) => void;
}

/** How the command ended and what it printed. */
export interface RunOutcome {
  readonly ending: GroupEnding;
  readonly exitCode: number | null;
  /** The signal that ended the shell (`SIGTERM`), when it did not exit by itself. */
  readonly signalName: string | null;
  readonly stdout: OutputCap;
  readonly stderr: OutputCap;
}

/** Runs `command`; throws only when the shell cannot be started. */
export async function runCommand(command: string, options: RunOptions): Promise<RunOutcome> {
  const shellArgv = [options.shell, "-c", command];
  const prefix = pidNamespacePrefix();
  // In a namespace the shell is the init's child, and the init tells how it ended on fd 3.
  const underOurInit = prefix.length > 0;
  const child = Bun.spawn(underOurInit ? [...prefix, ...underInit(shellArgv)] : shellArgv, {
    cwd: options.cwd,
    env: commandEnvironment(),
    detached: true,
    stdio: ["ignore", "pipe", "pipe", underOurInit ? "pipe" : "ignore"],
  });
  const reported = underOurInit ? readEnding(child.stdio[3] as number) : Promise.resolve(null);

  const group = superviseGroup(child.pid, options);
  const stdout = new StreamCapture(child.stdout, options.maxOutputChars, options.file?.stdout, options.progress);
  const stderr = new StreamCapture(child.stderr, options.maxOutputChars, options.file?.stderr, options.progress);
  try {
    await child.exited;
  } finally {
    group.release();
  }
  killGroup(child.pid);
  await drainPipes([stdout, stderr]);
  // The report is in once `unshare` has exited (the init wrote it, or died without one).
  const report = (await settlesWithin(reported, PIPE_GRACE_MS)) ? await reported : null;
  const exitCode = report === null ? child.exitCode : report.exitCode;
  const signalCode = report === null ? child.signalCode : report.signalCode;
  const signalName = signalCode === null ? null : String(signalCode);
  return { ending: group.ending(), exitCode, signalName, stdout: stdout.cap, stderr: stderr.cap };
}

/**
 * Plugboard's own credentials (the model's key, the web and MCP tokens) are not the command's:
 * they never reach the shell. The rest of the user's environment does, unconfined; a confined
 * bash gets no credentials at all (the sandbox passes only PATH, locale and the like).
 */
const WITHHELD = ["MODEL_API_KEY", "OPENAI_API_KEY", "PLUGBOARD_WEB_TOKEN", "PLUGBOARD_MCP_TOKEN"];

function commandEnvironment(): Record<string, string | undefined> {
  const env = { ...process.env };
  for (const name of WITHHELD) delete env[name];
  return env;
}

/** Reads a byte stream to its end, decoding UTF-8 across chunk boundaries into a cap. */
class StreamCapture {
  readonly cap: OutputCap;
  readonly done: Promise<void>;
  readonly #reader: Reader;
  readonly #spill: Spill | undefined;
  readonly #progress: ((text: string) => void) | undefined;

  constructor(stream: ReadableStream<Uint8Array>, limit: number, spill: Spill | undefined, progress: ((text: string) => void) | undefined) {
    this.cap = new OutputCap(limit);
    this.#spill = spill;
    this.#progress = progress;
    this.#reader = readerOf(stream);
    this.done = this.#drain();
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel();
    await this.done;
  }

  async #drain(): Promise<void> {
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await this.#reader.read();
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      this.cap.push(text, value.length);
      if (text !== "") this.#progress?.(text);
      // Awaited: a file slower than the command holds the pipe, never the memory.
      if (this.#spill !== undefined) await this.#spill.push(value);
    }
    this.cap.push(decoder.decode(), 0);
  }
}

function readerOf(stream: ReadableStream<Uint8Array>) {
  return stream.getReader();
}

type Reader = ReturnType<typeof readerOf>;
