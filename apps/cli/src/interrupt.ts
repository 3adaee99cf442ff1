/**
 * Ending signals: Ctrl-C (SIGINT), SIGTERM and SIGHUP all cancel what runs — the calls'
 * process trees are killed through their abort signals — and the command then exits with
 * the signal's code (130, 143, 129). A second signal exits at once. A terminal that goes
 * away (its read ends or fails while a prompt waits) is a hangup too: `hangUp` handles it
 * as SIGHUP, for a CLI the kernel sends no SIGHUP (not the terminal's session leader).
 */

/** The exit code of each ending signal: 128 + its number. */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const;

/** A signal that ends (or, for SIGINT in the interactive session, interrupts) the CLI. */
export type EndingSignal = keyof typeof SIGNAL_EXIT_CODES;

const SIGNALS = Object.keys(SIGNAL_EXIT_CODES) as EndingSignal[];

const listeners = new Set<(signal: EndingSignal) => void>();

/** How the terminal's hangup was learnt, once it was: by the signal, or by its read (`hangUp`). */
let hungUp: "signal" | "terminal" | undefined;

/** Calls `listener` on each SIGINT, SIGTERM or SIGHUP (and `hangUp`) until the returned function is called. */
export function onEndingSignal(listener: (signal: EndingSignal) => void): () => void {
  const releases = SIGNALS.map((signal) => {
    const onSignal = () => {
      // The SIGHUP of a terminal whose read already ended is the same news, not a second signal.
      if (signal === "SIGHUP" && hungUp === "terminal") return;
      if (signal === "SIGHUP") hungUp = "signal";
      listener(signal);
    };
    process.on(signal, onSignal);
    return () => process.off(signal, onSignal);
  });
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    for (const release of releases) release();
  };
}

/**
 * The terminal went away (a read on it ended or failed): handled as SIGHUP, once — not again
 * when the kernel's SIGHUP came or comes too. With no one listening, the process gets a real
 * SIGHUP, which ends it.
 */
export function hangUp(): void {
  // The read ended or failed: the terminal is gone, whether or not a SIGHUP said so first (one
  // sent by hand leaves it there, and what is written as the process ends still shows).
  muteTerminal();
  if (hungUp !== undefined) return;
  hungUp = "terminal";
  if (listeners.size === 0) process.kill(process.pid, "SIGHUP");
  for (const listener of [...listeners]) listener("SIGHUP");
}

/**
 * The terminal is gone: what the process would still write to it (a prompt's last line, a
 * note as the command ends) is dropped, since no one can read it; a write to it would fail
 * with EIO, and the process end as a crash instead of as a hangup.
 */
function muteTerminal(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (!stream.isTTY) continue;
    // Written as far as anyone can tell: the callback, which a drain waits for, is called.
    stream.write = (_chunk: unknown, encoding?: unknown, callback?: unknown) => {
      const done = typeof encoding === "function" ? encoding : callback;
      if (typeof done === "function") queueMicrotask(() => done());
      return true;
    };
  }
}

/**
 * Calls `handler` with the signal's exit code on SIGINT, SIGTERM or SIGHUP until the
 * returned function is called; a second signal exits at once with its code.
 */
export function onInterrupt(handler: (exitCode: number, signal: EndingSignal) => void): () => void {
  let count = 0;
  return onEndingSignal((signal) => {
    count++;
    if (count > 1) process.exit(SIGNAL_EXIT_CODES[signal]);
    handler(SIGNAL_EXIT_CODES[signal], signal);
  });
}

/** What `abortOnInterrupt` returns: the signal to pass on, and the exit code once interrupted. */
export interface InterruptScope extends Disposable {
  readonly signal: AbortSignal;
  /** The ending signal's exit code (130, 143, 129), or `fallback` when none came. */
  exitCode(fallback: number): number;
}

/**
 * Aborts `signal` on the first ending signal and remembers its exit code, until disposed:
 * what `run`, `call` and `mcp` each need around their work.
 *
 * @example using interrupt = abortOnInterrupt(); await work(interrupt.signal); return interrupt.exitCode(0);
 */
export function abortOnInterrupt(): InterruptScope {
  const controller = new AbortController();
  let code: number | undefined;
  const release = onInterrupt((exitCode) => {
    code = exitCode;
    controller.abort();
  });
  return { signal: controller.signal, exitCode: (fallback) => code ?? fallback, [Symbol.dispose]: release };
}
