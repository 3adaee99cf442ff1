/**
 * A waiting indicator on a terminal's stderr: `⠋ waiting for the model 1.4s`, redrawn in
 * place and erased when done. Does nothing when stderr is not a terminal.
 */

/** Shows what the CLI is waiting for; `stop` erases it. */
export interface Spinner {
  start(label: string): void;
  stop(): void;
}

const FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏";
const INTERVAL_MS = 100;

/** A spinner on `stream`, or one that does nothing when `stream` is not a terminal. */
export function createSpinner(stream: NodeJS.WriteStream, dim: (text: string) => string): Spinner {
  if (!stream.isTTY) return { start() {}, stop() {} };
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    if (timer === undefined) return;
    clearInterval(timer);
    timer = undefined;
    stream.write("\r\u001b[K");
  };
  return {
    start(label) {
      stop();
      const started = performance.now();
      let frame = 0;
      const draw = () => {
        const seconds = ((performance.now() - started) / 1000).toFixed(1);
        stream.write(`\r\u001b[K${dim(`${FRAMES[frame++ % FRAMES.length]} ${label} ${seconds}s`)}`);
      };
      draw();
      timer = setInterval(draw, INTERVAL_MS);
      // The indicator never keeps the process alive by itself.
      timer.unref?.();
    },
    stop,
  };
}
