/**
 * Reading an answer from the terminal while a turn runs: one key in raw mode, or one line.
 * Raw mode turns Ctrl-C into a key, so it is sent back to the process as SIGINT: the
 * command's own handler then cancels the turn, exactly as a Ctrl-C elsewhere would.
 */
import { createInterface } from "node:readline";

const CTRL_C = "\u0003";

/**
 * Resolves with the first key in `keys` that is pressed (others are ignored); rejects with
 * the signal's reason when `signal` aborts first.
 */
export function readKey(input: NodeJS.ReadStream, keys: readonly string[], signal: AbortSignal): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const finish = () => {
      input.off("data", onData);
      signal.removeEventListener("abort", onAbort);
      input.setRawMode(false);
      input.pause();
    };
    const onAbort = () => {
      finish();
      reject(signal.reason);
    };
    const onData = (chunk: Buffer | string) => {
      const text = chunk.toString();
      if (text.includes(CTRL_C)) {
        process.kill(process.pid, "SIGINT");
        return;
      }
      const key = [...text].find((char) => keys.includes(char.toLowerCase()));
      if (key === undefined) return;
      finish();
      resolve(key.toLowerCase());
    };
    if (signal.aborted) return reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    input.setRawMode(true);
    input.on("data", onData);
    input.resume();
  });
}

/** Shows `prompt` on `output` and resolves with the line typed; rejects when `signal` aborts (Ctrl-C included). */
export function readLine(input: NodeJS.ReadStream, output: NodeJS.WriteStream, prompt: string, signal: AbortSignal): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const rl = createInterface({ input, output, terminal: true });
    const onAbort = () => {
      rl.close();
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    rl.on("SIGINT", () => process.kill(process.pid, "SIGINT"));
    rl.question(prompt, (line) => {
      signal.removeEventListener("abort", onAbort);
      rl.close();
      resolve(line);
    });
  });
}
