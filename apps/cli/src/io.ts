/** The process's streams, environment and folder, gathered once so commands take them explicitly. */
import { fstatSync } from "node:fs";
import { invocationCwd } from "@plugboard/bootstrap";
import { PlugboardError } from "@plugboard/errors";
import { visible } from "@plugboard/core/internal";
import { lazyLibc } from "@plugboard/core/libc";
import { writeAll } from "@plugboard/core/process";
import { createStyle, type Style } from "./output.ts";

/** What a command reads from and writes to. */
export interface Io {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly env: Record<string, string | undefined>;
  /** The folder the user ran the command in. */
  readonly cwd: string;
  /** Colours for stderr. */
  readonly style: Style;
  /**
   * Writes `plugboard: MESSAGE` on stderr, its control characters written out (`\x1b`): a
   * message may quote what a plugin, a server or the model wrote (a warning, an error).
   */
  note(message: string): void;
  /**
   * Writes `text` to stdout, for commands that print once and end (`--version`, help,
   * `tools`, …). For the real process it writes without the Node stream, whose set-up
   * costs more than the rest of `--version`.
   */
  print(text: string): Promise<void>;
  /** Waits until what was written (to stdout and stderr, `print`s included) is out, and ends the streams: the last thing before the process exits. */
  drain(): Promise<void>;
}

/**
 * The real process's `Io`. Its streams and style are made when first used: creating
 * `process.stdout` or `process.stderr` loads Node's stream machinery, which a command that
 * only prints (through `print`) and notes (through `note`) never needs.
 */
export function processIo(): Io {
  const { env } = process;
  const used = new Set<NodeJS.WriteStream>();
  // Asked of flags, not of `used`: reading `process.stdout` or `process.stderr` creates the stream.
  let stdoutUsed = false;
  let stderrUsed = false;
  const writable = (stream: NodeJS.WriteStream) => {
    if (!used.has(stream)) stream.on("error", (error) => streamFailed(error, stream === process.stdout ? 1 : 2));
    used.add(stream);
    return stream;
  };
  let style: Style | undefined;
  let printed: Promise<unknown> = Promise.resolve();
  const io: Io = {
    get stdin() {
      return process.stdin;
    },
    get stdout() {
      stdoutUsed = true;
      return writable(process.stdout);
    },
    get stderr() {
      stderrUsed = true;
      return writable(process.stderr);
    },
    env,
    cwd: invocationCwd(env, process.cwd(), "plugboard"),
    get style() {
      style ??= createStyle(stderrUsed ? process.stderr : { isTTY: stderrIsTerminal() }, env);
      return style;
    },
    note(message) {
      const line = `${io.style.dim("plugboard:")} ${visible(message)}\n`;
      // Until the stream exists, written at once, in order (and waited for: see noteNow).
      if (stderrUsed) io.stderr.write(line);
      else noteNow(line);
    },
    print(text) {
      // Once the Node stream exists, keep to it so that the two never reorder output.
      if (stdoutUsed) return new Promise((done) => process.stdout.write(text, () => done()));
      printed = printed.then(() => Bun.write(Bun.stdout, text)).catch((error: unknown) => {
        const failure = outputFailure(error, 1);
        if (failure !== undefined) throw failure;
      });
      return printed.then(() => undefined);
    },
    async drain() {
      // A print that failed told its caller (the command), which said so: nothing is left to say here.
      await printed.catch(() => undefined);
      // Ended, not written to with an empty chunk: Bun calls an empty write back at once, while
      // what came before it may still wait for room in a pipe its reader made non-blocking.
      await Promise.all([...used].map((stream) => new Promise<void>((done) => (stream.writableEnded || stream.destroyed ? done() : stream.end(() => done())))));
    },
  };
  return io;
}

/**
 * What a failed write to `fd` (1 stdout, 2 stderr) is to a person. A write whose reader is
 * gone (the pipe closed, as `plugboard tools | head -1` closes it once it has its line; a
 * terminal that went away, EIO on a character device) delivers nothing more and is no failure
 * here: the command ends as it would have (a terminal's hangup, 129, is interrupt.ts's),
 * undefined. One the system refused otherwise (a full disk, `> /dev/full`) is the person's to
 * fix: a `PlugboardError` saying so. Anything else is a bug of ours, thrown on.
 */
function outputFailure(error: unknown, fd: 1 | 2): PlugboardError | undefined {
  const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
  if (code === "EPIPE" || code === "ERR_STREAM_DESTROYED" || (code === "EIO" && characterDevice(fd))) return undefined;
  if (!(error instanceof Error) || typeof code !== "string" || !/^E[A-Z0-9]+$/.test(code)) throw error;
  const stream = fd === 1 ? "stdout" : "stderr";
  // Bun's message: "ENOSPC: no space left on device, write".
  const reason = error.message.replace(/^E[A-Z0-9]+: /, "").replace(/, write$/, "");
  return new PlugboardError("OUTPUT", `Cannot write plugboard's ${stream}: ${reason} (${code}).\nSend it where it can be written: a file on a disk with room, or a pipe that is read.`);
}

/**
 * An error of Node's stdout or stderr stream, emitted while a command runs: a reader gone is
 * dropped; stdout refused otherwise ends the process with the message on stderr (exit 2), as
 * a command's failure would. stderr refused has nowhere to say so: it is dropped.
 */
function streamFailed(error: unknown, fd: 1 | 2): void {
  const failure = outputFailure(error, fd);
  if (failure === undefined || fd === 2) return;
  noteNow(`plugboard: ${failure.message}\n`);
  process.exit(2);
}

const libc = lazyLibc({ isatty: { args: ["i32"], returns: "i32" } });

/** Whether stderr is a terminal, asked of libc: asking `process.stderr` would create the stream. */
function stderrIsTerminal(): boolean {
  const functions = libc();
  return functions === null ? process.stderr.isTTY === true : functions.isatty(2) === 1;
}

/** Whether `fd` is a character device: a terminal stays one after it hung up, when `isatty` no longer says so. */
function characterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/**
 * Writes all of `text` to stderr before it returns (`writeAll`: it waits while a pipe is full,
 * even one its reader made non-blocking, where Node's stream, drained by an empty write, could
 * lose what it was given as the process exits). A write the system refuses (a reader gone, a
 * full disk) drops the text: stderr is where it would have said so.
 */
function noteNow(text: string): void {
  try {
    writeAll(2, text);
  } catch (error) {
    outputFailure(error, 2);
  }
}
