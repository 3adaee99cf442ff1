/**
 * Running a short-lived program of the user's (a hook): text on its stdin, its stdout and
 * stderr read within a cap, a deadline. It runs as a process group of its own, and the whole
 * group is killed with SIGKILL on timeout, on abort, when the program exits (so what it left in
 * the background ends with it) and when this process exits.
 */
import { drainPipes, type GroupEnding, killGroup, killGroupOnExit, superviseGroup } from "./group.ts";

/** Inputs of `runProgram`. */
export interface ProgramOptions {
  readonly cwd: string;
  /** Its environment. @default this process's */
  readonly env?: Readonly<Record<string, string>>;
  /** Written to its stdin, which is then closed. */
  readonly input: string;
  readonly timeoutMs: number;
  readonly signal: AbortSignal;
  /** Bytes of stdout (and, separately, of stderr) kept; more marks the outcome `overflowed`. @default 10 MiB */
  readonly maxOutputBytes?: number;
}

/** How the program ended and what it printed. */
export interface ProgramOutcome {
  readonly ending: GroupEnding;
  readonly exitCode: number | null;
  readonly signalCode: string | null;
  readonly stdout: string;
  readonly stderr: string;
  /** It printed more than `maxOutputBytes` on stdout: what it printed is cut. */
  readonly overflowed: boolean;
}

const MAX_OUTPUT_BYTES = 10 * 1024 * 1024;

/**
 * Runs `argv`; throws (as `Bun.spawn` does, e.g. ENOENT or EACCES) only when it cannot start.
 *
 * @example await runProgram(["./check.sh"], { cwd, input: "{}", timeoutMs: 10_000, signal })
 */
export async function runProgram(argv: readonly string[], options: ProgramOptions): Promise<ProgramOutcome> {
  const limit = options.maxOutputBytes ?? MAX_OUTPUT_BYTES;
  const child = Bun.spawn([...argv], { cwd: options.cwd, env: { ...(options.env ?? process.env) }, detached: true, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const forget = killGroupOnExit(child.pid);
  const group = superviseGroup(child.pid, options);

  const stdout = capture(child.stdout, limit, () => group.stop("exited"));
  const stderr = capture(child.stderr, limit);
  // A program that never reads its stdin closes it: that is its business, not a failure.
  void feed(child.stdin, options.input);
  try {
    await child.exited;
  } finally {
    group.release();
    killGroup(child.pid);
    forget();
  }
  await drainPipes([stdout, stderr]);
  return {
    ending: group.ending(),
    exitCode: child.exitCode,
    signalCode: child.signalCode === null ? null : String(child.signalCode),
    stdout: stdout.text(),
    stderr: stderr.text(),
    overflowed: stdout.overflowed(),
  };
}

async function feed(stdin: Bun.FileSink, input: string): Promise<void> {
  try {
    stdin.write(input);
    await stdin.end();
  } catch {
    // EPIPE: it exited or closed its stdin without reading it all.
  }
}

/** Reads `stream` to its end, keeping at most `limit` bytes; past it, calls `onOverflow` once. */
function capture(stream: ReadableStream<Uint8Array>, limit: number, onOverflow?: () => void) {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let over = false;
  const done = (async () => {
    for (;;) {
      const { done: ended, value } = await reader.read();
      if (ended) return;
      if (over) continue;
      if (kept + value.byteLength > limit) {
        over = true;
        chunks.push(value.subarray(0, limit - kept));
        onOverflow?.();
        continue;
      }
      chunks.push(value);
      kept += value.byteLength;
    }
  })();
  return {
    done,
    overflowed: () => over,
    text: () => Buffer.concat(chunks).toString("utf8"),
    cancel: async () => {
      await reader.cancel().catch(() => {});
      await done.catch(() => {});
    },
  };
}
