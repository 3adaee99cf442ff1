/**
 * Lines from stdin, one request at a time. readline emits lines as they arrive (a pipe may
 * deliver them all at once, and close right after), so they are queued here until the
 * session asks for the next one; nothing typed or piped is lost.
 */
import { createInterface } from "node:readline";

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
  const rl = createInterface({ input, output, terminal: input.isTTY === true && output.isTTY === true, prompt });
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
