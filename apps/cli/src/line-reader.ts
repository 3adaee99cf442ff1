/**
 * The session's messages from stdin, one at a time.
 *
 * On a terminal (stdin and `output` both terminals) the message editor reads them: Enter
 * sends; Alt+Enter, Shift+Enter (where the terminal sends it apart: `ESC[13;2u`,
 * `ESC[27;2;13~`), Ctrl-J and a `\` before Enter start a new line; a paste is inserted whole,
 * line breaks and blank lines included — marked by the terminal's bracketed paste, or, without
 * it, by arriving in one read (a line break followed by more in the same read was pasted; one
 * that ends the read is Enter). The keyboard is held from the reader's creation to `close`, so
 * what is typed while the app starts or during a turn waits for the next prompt.
 *
 * From a pipe each line is a message, queued until the session asks for it (nothing piped is
 * lost), with no prompt: stdout holds only the answers. A terminal whose read ends or fails
 * has gone away: a hangup (`hangUp`), not the end of the input.
 */
import { createInterface } from "node:readline";
import { hangUp } from "./interrupt.ts";
import { createKeyDecoder } from "./keys.ts";
import { createLineEditor, type LineEditor } from "./line-editor.ts";
import { type Keyboard, keyboardOf } from "./terminal-input.ts";

export interface LineReader {
  /** Shows the prompt (on a terminal) and resolves with the next message, or undefined at the end of input. */
  next(): Promise<string | undefined>;
  /** Ends input: pending and future `next` calls resolve with undefined. */
  close(): void;
  /** Calls `handler` when a terminal's Ctrl-C arrives as a key press at the prompt. */
  onInterrupt(handler: () => void): void;
}

/** Reads messages from `input`, showing `prompt` on `output` before each one when both are terminals. */
export function createLineReader(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string): LineReader {
  return input.isTTY === true && output.isTTY === true ? terminalReader(input, output, prompt) : pipeReader(input);
}

function pipeReader(input: NodeJS.ReadStream): LineReader {
  const rl = createInterface({ input, terminal: false });
  const queue: string[] = [];
  let ended = false;
  let closed = false;
  let wake: (() => void) | undefined;
  rl.on("line", (line) => {
    queue.push(line);
    wake?.();
  });
  rl.on("close", () => {
    ended = true;
    wake?.();
  });
  return {
    async next() {
      while (queue.length === 0 && !ended && !closed) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      return closed ? undefined : queue.shift();
    },
    close() {
      closed = true;
      rl.close();
      wake?.();
    },
    onInterrupt() {
      // A pipe has no Ctrl-C key: the signal reaches the process.
    },
  };
}

/** The message editor on the held keyboard, the history (up and down arrows) shared across messages. */
function terminalReader(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string): LineReader {
  const history: string[] = [];
  const handlers: (() => void)[] = [];
  const decode = createKeyDecoder();
  // Held from the start, before the first prompt: what is typed while the app starts is kept for it.
  let keyboard: Keyboard | undefined = earlyKeyboard(input, output);
  let current: { editor: LineEditor; end: (message: string | undefined) => void } | undefined;
  let closed = false;
  return {
    next() {
      if (closed) return Promise.resolve(undefined);
      try {
        keyboard ??= keyboardOf(input, output);
      } catch {
        // EIO: the terminal went away before the prompt.
        hangUp();
        return Promise.resolve(undefined);
      }
      const held = keyboard;
      return new Promise((resolve) => {
        const editor = createLineEditor(output, prompt, history);
        let release = () => {};
        const end = (message: string | undefined) => {
          release();
          current = undefined;
          resolve(closed ? undefined : message);
        };
        current = { editor, end };
        const reader = {
          chunk(text: string) {
            for (const key of decode(text)) {
              const outcome = editor.press(key);
              if (outcome?.kind === "send") return end(outcome.text);
              if (outcome?.kind === "eof") return end(undefined);
              if (outcome?.kind === "interrupt") {
                for (const handler of handlers) handler();
                return end(undefined);
              }
            }
          },
          gone: () => end(undefined),
        };
        release = held.take(reader);
        // What was typed during the turn comes first, as if typed at this prompt.
        held.replay(reader);
      });
    },
    close() {
      if (closed) return;
      closed = true;
      if (current) {
        current.editor.leave();
        current.end(undefined);
      }
      keyboard?.release();
    },
    onInterrupt(handler) {
      handlers.push(handler);
    },
  };
}

/** The keyboard held now, or undefined when the terminal is already gone (the first `next` says so). */
function earlyKeyboard(input: NodeJS.ReadStream, output: NodeJS.WriteStream): Keyboard | undefined {
  try {
    return keyboardOf(input, output);
  } catch {
    return undefined;
  }
}
