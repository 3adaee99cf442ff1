/**
 * Ending signals: Ctrl-C (SIGINT), SIGTERM and SIGHUP all cancel what runs — the calls'
 * process trees are killed through their abort signals — and the command then exits with
 * the signal's code (130, 143, 129). A second signal exits at once.
 */

/** The exit code of each ending signal: 128 + its number. */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/** A signal that ends (or, for SIGINT in the interactive session, interrupts) the CLI. */
export type EndingSignal = keyof typeof SIGNAL_EXIT_CODES;

const SIGNALS = Object.keys(SIGNAL_EXIT_CODES) as EndingSignal[];

/**
 * Calls `handler` with the signal's exit code on SIGINT, SIGTERM or SIGHUP until the
 * returned function is called; a second signal exits at once with its code.
 */
export function onInterrupt(handler: (exitCode: number, signal: EndingSignal) => void): () => void {
  let count = 0;
  const listeners = SIGNALS.map((signal) => {
    const listener = () => {
      count++;
      if (count > 1) process.exit(SIGNAL_EXIT_CODES[signal]);
      handler(SIGNAL_EXIT_CODES[signal], signal);
    };
    process.on(signal, listener);
    return () => process.off(signal, listener);
  });
  return () => {
    for (const release of listeners) release();
  };
}
