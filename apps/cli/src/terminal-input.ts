/**
 * The terminal's keyboard, read in raw mode by one owner at a time. A session holds it from
 * its first prompt to its end (`holdKeyboard`): keys typed while no prompt is open — while
 * the model answers or a tool runs — are kept for the next message, and never answer an
 * approval. Its bracketed paste mode (`ESC[?2004h`) makes a terminal mark a paste, so the
 * editor inserts it whole. `readKey` and `readLine` use the held keyboard, or hold it for
 * the time of their question. Raw mode turns Ctrl-C into a key: outside the editor it is
 * sent back to the process as SIGINT, so the command's own handler cancels the turn, exactly
 * as a Ctrl-C elsewhere would. A read that ends (EOF) or fails (EIO) means the terminal went
 * away: that is a hangup (`hangUp`), handled as SIGHUP.
 */
import { ptr } from "bun:ffi";
import { lazyLibc } from "@plugboard/core/libc";
import { PlugboardError } from "@plugboard/errors";
import { readSync, writeSync } from "node:fs";
import { hangUp } from "./interrupt.ts";
import { createKeyDecoder } from "./keys.ts";
import { createLineEditor } from "./line-editor.ts";

const CTRL_C = "\u0003";
const CTRL_Z = "\u001a";
const PASTE_ON = "\u001b[?2004h";
const PASTE_OFF = "\u001b[?2004l";

/** Why a prompt gave up when the terminal went away and no signal said why: a person's failure, said in one line, not a crash. */
const HUNG_UP = new PlugboardError("USAGE", "the terminal went away before the question was answered; run the command again at a terminal, or with --yes");

/** Who reads the keyboard now: each chunk (one read), and the news that the terminal went away. */
interface KeyReader {
  readonly chunk: (text: string) => void;
  readonly gone: () => void;
}

/** The keyboard in raw mode, read all the time; what no reader takes is kept, in order. */
export interface Keyboard {
  /** Sends what is typed from now on to `reader` until the returned function is called. */
  take(reader: KeyReader): () => void;
  /** Sends what was typed while no one read to `reader`, one chunk at a time, while it holds the keyboard. */
  replay(reader: KeyReader): void;
  /** Leaves raw mode and bracketed paste, and stops reading. */
  release(): void;
}

const held = new WeakMap<NodeJS.ReadStream, Keyboard>();

/**
 * Holds the keyboard of `input` until `release`: raw mode, and bracketed paste announced on
 * `output` (both undone when the process exits, however). Throws when the terminal is gone (EIO).
 */
export function holdKeyboard(input: NodeJS.ReadStream, output?: NodeJS.WriteStream): Keyboard {
  input.setRawMode(true);
  if (output) output.write(PASTE_ON);
  const decoder = new TextDecoder();
  // What the terminal holds now was typed before anything asked: kept as typed ahead, Enter as the terminal's line mode made it.
  const before = readBefore.has(input) ? "" : heldByTerminal(input);
  readBefore.add(input);
  const typed: string[] = before === "" ? [] : [before.replaceAll("\n", "\r")];
  const readers: KeyReader[] = [];
  let gone = input.readableEnded;
  // Until a question first reads, what arrives may have been typed before raw mode, where the terminal made Enter a line feed.
  let taken = false;
  const onData = (chunk: Buffer | string) => {
    let text = typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    if (!taken) text = text.replaceAll("\n", "\r");
    if (text.includes(CTRL_Z)) {
      text = text.replaceAll(CTRL_Z, "");
      suspend();
    }
    const reader = readers.at(-1);
    if (reader) return reader.chunk(text);
    if (text.includes(CTRL_C)) {
      text = text.replaceAll(CTRL_C, "");
      process.kill(process.pid, "SIGINT");
    }
    if (text !== "") typed.push(text);
  };
  const onGone = () => {
    gone = true;
    hangUp();
    for (const reader of [...readers].reverse()) reader.gone();
  };
  const restore = () => {
    try {
      input.setRawMode(false);
    } catch {
      // The terminal is gone: there is no mode left to restore.
    }
    const fd: unknown = output && Reflect.get(output, "fd");
    if (typeof fd === "number") {
      try {
        // Synchronously: this also runs as the process exits, when a stream's write would be lost.
        writeSync(fd, PASTE_OFF);
      } catch {
        // Likewise.
      }
    }
  };
  // Ctrl-Z, a key in raw mode: the terminal's mode back, the process stopped as the shell expects, raw again once continued.
  const suspend = () => {
    restore();
    process.once("SIGCONT", () => {
      try {
        input.setRawMode(true);
        output?.write(PASTE_ON);
      } catch {
        onGone();
      }
    });
    process.kill(process.pid, "SIGTSTP");
  };
  input.on("data", onData);
  input.on("end", onGone);
  input.on("error", onGone);
  process.on("exit", restore);
  input.resume();
  const keyboard: Keyboard = {
    take(next) {
      // A question asked while another reads (a prompt while the message editor waits) gives the keyboard back when it ends.
      readers.push(next);
      taken = true;
      const release = () => {
        const index = readers.indexOf(next);
        if (index !== -1) readers.splice(index, 1);
      };
      if (gone) {
        hangUp();
        next.gone();
      }
      return release;
    },
    replay(next) {
      while (readers.at(-1) === next && typed.length > 0) next.chunk(typed.shift() ?? "");
    },
    release() {
      held.delete(input);
      input.off("data", onData);
      input.off("end", onGone);
      input.off("error", onGone);
      process.off("exit", restore);
      restore();
      input.pause();
    },
  };
  held.set(input, keyboard);
  return keyboard;
}

/**
 * The inputs whose stream has read before: only the first hold reads what the terminal holds
 * itself, before any read of the stream's own (a stream paused since may have a read under
 * way, which would then come out of order).
 */
const readBefore = new WeakSet<NodeJS.ReadStream>();
const terminalLibc = lazyLibc({ ioctl: { args: ["i32", "u64", "ptr"], returns: "i32" } });
/** ioctl's request for the number of bytes a terminal holds to be read (the same on x86-64 and arm64). */
const FIONREAD = 0x541bn;

/**
 * What the terminal of `input` holds to be read now (asked with FIONREAD, then read, which
 * cannot block), before its stream reads anything: keys typed before the keyboard was held.
 * Its stream's own first read may come only after a question is shown (Bun reads a terminal
 * on a thread of its own, which a fresh process has yet to start): read here, they cannot be
 * taken for keys pressed after it. Nothing where libc cannot be called.
 */
function heldByTerminal(input: NodeJS.ReadStream): string {
  const fd: unknown = Reflect.get(input, "fd");
  const functions = terminalLibc();
  if (typeof fd !== "number" || functions === null) return "";
  const count = new Int32Array(1);
  if (functions.ioctl(fd, FIONREAD, ptr(count)) !== 0 || (count[0] ?? 0) <= 0) return "";
  const bytes = Buffer.alloc(count[0] ?? 0);
  try {
    return bytes.subarray(0, readSync(fd, bytes, 0, bytes.length, null)).toString("utf8");
  } catch {
    // The terminal went away meanwhile: its stream says so.
    return "";
  }
}

/** The keyboard of `input` already held, else one held now (see `holdKeyboard`). */
export function keyboardOf(input: NodeJS.ReadStream, output?: NodeJS.WriteStream): Keyboard {
  return held.get(input) ?? holdKeyboard(input, output);
}

/**
 * Runs `ask` with the keyboard of `input`: the one held, else one held for the question
 * (without bracketed paste when there is no `output`). Rejects when the terminal is gone.
 * Several questions asked inside one `ask` share the keyboard: no key typed between two of them
 * meets the terminal's own line mode, which echoes it and turns its Enter into a line feed.
 */
export async function withKeyboard<T>(input: NodeJS.ReadStream, output: NodeJS.WriteStream | undefined, ask: (keyboard: Keyboard) => Promise<T>): Promise<T> {
  const existing = held.get(input);
  if (existing) {
    await typedSoFar();
    return ask(existing);
  }
  let keyboard: Keyboard;
  try {
    keyboard = holdKeyboard(input, output);
  } catch {
    // EIO: the terminal went away before the prompt.
    hangUp();
    throw HUNG_UP;
  }
  try {
    await typedSoFar();
    return await ask(keyboard);
  } finally {
    keyboard.release();
  }
}

/**
 * One turn of the event loop, in which what the terminal already holds is read: keys typed
 * before a question was shown, but not yet read when it was (a start that asks before the
 * loop got to the keyboard), are then kept as typed ahead instead of answering it.
 */
function typedSoFar(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Shows the question (`show`, which writes it) once the keyboard is raw and what was typed
 * before has been read, then resolves with the first key in `keys` pressed after it (others
 * are ignored): a key pressed as soon as the question appears answers it, however soon.
 * Rejects with the signal's reason when `signal` aborts first, or when the terminal goes away.
 */
export function readKey(input: NodeJS.ReadStream, keys: readonly string[], signal: AbortSignal, show: () => void): Promise<string> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return withKeyboard(input, undefined, (keyboard) => {
    show();
    return askedKey(keyboard, keys, signal);
  });
}

function askedKey(keyboard: Keyboard, keys: readonly string[], signal: AbortSignal): Promise<string> {
  return asked(keyboard, signal, (settle) => ({
    chunk(text) {
      if (text.includes(CTRL_C)) {
        process.kill(process.pid, "SIGINT");
        return;
      }
      const key = [...text].find((char) => keys.includes(char.toLowerCase()));
      if (key !== undefined) settle(() => key.toLowerCase());
    },
  }));
}

/**
 * Shows `prompt` on `output` and resolves with the text typed (the message editor's keys;
 * a paste keeps its lines); rejects when `signal` aborts (Ctrl-C included), or when the
 * terminal goes away.
 */
export function readLine(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string, signal: AbortSignal): Promise<string> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return withKeyboard(input, output, (keyboard) => {
    const editor = createLineEditor(output, prompt, []);
    const decode = createKeyDecoder();
    return asked(
      keyboard,
      signal,
      (settle) => ({
        chunk(text) {
          for (const key of decode(text)) {
            const outcome = editor.press(key);
            if (outcome?.kind === "interrupt") process.kill(process.pid, "SIGINT");
            else if (outcome) return settle(() => (outcome.kind === "send" ? outcome.text : ""));
          }
        },
      }),
      () => editor.leave(),
    );
  });
}

/**
 * One question on the keyboard: `reader` answers it through `settle`; the signal's abort or
 * the terminal's hangup rejects it. `leave` runs when it ends without an answer.
 */
function asked<T>(
  keyboard: Keyboard,
  signal: AbortSignal,
  reader: (settle: (answer: () => T) => void) => Pick<KeyReader, "chunk">,
  leave?: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let release = () => {};
    const finish = (then: () => void) => {
      if (done) return;
      done = true;
      release();
      signal.removeEventListener("abort", onAbort);
      then();
    };
    const onAbort = () =>
      finish(() => {
        leave?.();
        reject(signal.reason);
      });
    const { chunk } = reader((answer) => finish(() => resolve(answer())));
    signal.addEventListener("abort", onAbort, { once: true });
    release = keyboard.take({ chunk, gone: () => finish(() => reject(signal.aborted ? signal.reason : HUNG_UP)) });
  });
}
