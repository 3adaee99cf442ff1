/**
 * Lines from stdin, one request at a time. From a pipe, readline emits lines as they arrive
 * (all at once, then close), so they are queued until the session asks for the next one;
 * nothing piped is lost. On a terminal, readline holds the keyboard only while the prompt
 * waits for a line, so during a turn an approval prompt can read single keys. A terminal
 * whose read ends or fails has gone away: a hangup (`hangUp`), not the end of the input.
 */
import { createInterface, type Interface } from "node:readline";
import { hangUp } from "./interrupt.ts";
import { closeQuietly } from "./terminal-input.ts";

export interface LineReader {
  /** Shows the prompt and resolves with the next line, or undefined at the end of input. */
  next(): Promise<string | undefined>;
  /** Ends input: pending and future `next` calls resolve with undefined. */
  close(): void;
  /** Calls `handler` when a terminal's Ctrl-C arrives as a key press. */
  onInterrupt(handler: () => void): void;
}

/** Reads lines from `input`, showing `prompt` on `output` before each one. */
export function createLineReader(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string): LineReader {
  return input.isTTY === true && output.isTTY === true ? terminalReader(input, output, prompt) : pipeReader(input, output, prompt);
}

function pipeReader(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string): LineReader {
  const rl = createInterface({ input, output, terminal: false, prompt });
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
      if (closed) return undefined;
      if (ended) output.write(prompt);
      else rl.prompt();
      while (queue.length === 0 && !ended && !closed) await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
      return closed ? undefined : queue.shift();
    },
    close() {
      closed = true;
      rl.close();
      wake?.();
    },
    onInterrupt(handler) {
      rl.on("SIGINT", handler);
    },
  };
}

/** One readline interface per line, sharing the history (up and down arrows) across lines. */
function terminalReader(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string): LineReader {
  const history: string[] = [];
  const handlers: (() => void)[] = [];
  let current: Interface | undefined;
  let closed = false;
  // Registered before any readline interface's own listeners, so the hangup is known before readline closes.
  input.on("end", hangUp);
  input.on("error", hangUp);
  return {
    next() {
      if (closed) return Promise.resolve(undefined);
      return new Promise((resolve) => {
        const rl = createInterface({ input, output, terminal: true, prompt, history, historySize: 1000 });
        current = rl;
        let line: string | undefined;
        for (const handler of handlers) rl.on("SIGINT", handler);
        rl.once("line", (text) => {
          line = text;
          rl.close();
        });
        rl.once("close", () => {
          current = undefined;
          resolve(closed ? undefined : line);
        });
        rl.prompt();
      });
    },
    close() {
      closed = true;
      input.off("end", hangUp);
      input.off("error", hangUp);
      if (current) closeQuietly(current);
    },
    onInterrupt(handler) {
      handlers.push(handler);
      current?.on("SIGINT", handler);
    },
  };
}
