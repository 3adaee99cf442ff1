/**
 * Reading an answer from the terminal while a turn runs: one key in raw mode, or one line.
 * Raw mode turns Ctrl-C into a key, so it is sent back to the process as SIGINT: the
 * command's own handler then cancels the turn, exactly as a Ctrl-C elsewhere would. A read
 * that ends (EOF) or fails (EIO) means the terminal went away: that is a hangup (`hangUp`),
 * handled as SIGHUP.
 */
import { createInterface, type Interface } from "node:readline";
import { hangUp } from "./interrupt.ts";

const CTRL_C = "\u0003";

/** Why a prompt gave up when the terminal went away and no signal said why. */
const HUNG_UP = new Error("the terminal hung up");

/**
 * Resolves with the first key in `keys` that is pressed (others are ignored); rejects with
 * the signal's reason when `signal` aborts first, or when the terminal goes away.
 */
export function readKey(input: NodeJS.ReadStream, keys: readonly string[], signal: AbortSignal): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let done = false;
    const finish = () => {
      if (done) return false;
      done = true;
      input.off("data", onData);
      input.off("end", onGone);
      input.off("error", onGone);
      signal.removeEventListener("abort", onAbort);
      restoreMode(input);
      input.pause();
      return true;
    };
    const onAbort = () => {
      if (finish()) reject(signal.reason);
    };
    const onGone = () => {
      hangUp();
      if (finish()) reject(signal.aborted ? signal.reason : HUNG_UP);
    };
    const onData = (chunk: Buffer | string) => {
      const text = chunk.toString();
      if (text.includes(CTRL_C)) {
        process.kill(process.pid, "SIGINT");
        return;
      }
      const key = [...text].find((char) => keys.includes(char.toLowerCase()));
      if (key === undefined) return;
      if (finish()) resolve(key.toLowerCase());
    };
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    input.on("end", onGone);
    input.on("error", onGone);
    if (input.readableEnded) return onGone();
    try {
      input.setRawMode(true);
    } catch {
      // EIO: the terminal went away before the prompt.
      return onGone();
    }
    input.on("data", onData);
    input.resume();
  });
}

/**
 * Shows `prompt` on `output` and resolves with the line typed; rejects when `signal` aborts
 * (Ctrl-C included), or when the terminal goes away.
 */
export function readLine(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string, signal: AbortSignal): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let done = false;
    const onGone = () => {
      hangUp();
      settle(() => reject(signal.aborted ? signal.reason : HUNG_UP));
    };
    // Before readline's own: a hung-up terminal makes readline close, which is no answer.
    input.prependListener("end", onGone);
    input.prependListener("error", onGone);
    const rl = createInterface({ input, output, terminal: true });
    const settle = (then: () => void) => {
      if (done) return;
      done = true;
      signal.removeEventListener("abort", onAbort);
      input.off("end", onGone);
      input.off("error", onGone);
      closeQuietly(rl);
      then();
    };
    const onAbort = () => settle(() => reject(signal.reason));
    signal.addEventListener("abort", onAbort, { once: true });
    rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
    rl.question(prompt, (line) => settle(() => resolve(line)));
  });
}

/** Leaves raw mode; on a terminal that went away this fails (EIO), and there is no mode left to restore. */
function restoreMode(input: NodeJS.ReadStream): void {
  try {
    input.setRawMode(false);
  } catch {
    // The terminal is gone.
  }
}

/**
 * Closes a readline interface. On a terminal that went away, leaving raw mode fails (EIO)
 * before readline lets go of the input: it is then closed without restoring the mode.
 */
export function closeQuietly(rl: Interface): void {
  try {
    rl.close();
  } catch {
    Reflect.set(rl, "terminal", false);
    rl.close();
  }
}
