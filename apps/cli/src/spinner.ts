/**
 * A waiting indicator on a terminal's stderr: `⠋ waiting for the model 1.4s`, redrawn in
 * place and erased when done, with the last lines of a running tool's output under it. Does
 * nothing when stderr is not a terminal.
 */

/** Shows what the CLI is waiting for; `stop` erases it. */
export interface Spinner {
  start(label: string): void;
  /** Lines shown under the label until the next `start` or `stop` (a running tool's latest output). */
  tail(lines: readonly string[]): void;
  stop(): void;
}

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
const INTERVAL_MS = 100;

/** A spinner on `stream`, or one that does nothing when `stream` is not a terminal. */
export function createSpinner(stream: NodeJS.WriteStream, dim: (text: string) => string): Spinner {
  if (!stream.isTTY) return { start() {}, tail() {}, stop() {} };
  let timer: ReturnType<typeof setInterval> | undefined;
  let below: readonly string[] = [];
  let draw = () => {};
  const stop = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    below = [];
    // The cursor is on the label's line: erase it and everything under it.
    stream.write("\r\u001b[J");
  };
  return {
    start(label) {
      stop();
      const started = performance.now();
      let frame = 0;
      draw = () => {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        const lines = below.map((line) => `\n\u001b[K${dim(line)}`).join("");
        // The lines under the label, then back up to it: the next draw (or `stop`) starts there.
        const up = below.length === 0 ? "" : `\u001b[${below.length}A`;
        stream.write(`\r\u001b[K${dim(`${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s`)}${lines}\u001b[J${up}\r`);
      };
      draw();
      timer = setInterval(draw, INTERVAL_MS);
      // The indicator never keeps the process alive by itself.
      timer.unref?.();
    },
    tail(lines) {
      if (timer === undefined) return;
      below = lines;
      draw();
    },
    stop,
  };
}
