/**
 * How a process ended, and the one-line report of it that the init writes on fd 3 — so its
 * parent can tell `kill -TERM $$` from `exit 143`, which the init's own exit status cannot.
 * Imported by the init: it must stay free of imports.
 */

/** How a process ended, as Bun's `Subprocess` says it: an exit code, or the signal that ended it. */
export interface Ending {
  readonly exitCode: number | null;
  readonly signalCode: string | null;
}

/** The file descriptor the init reports on. */
export const REPORT_FD = 3;

/** The report line: `exit 3` or `signal SIGTERM`, and a newline. */
export function formatEnding({ exitCode, signalCode }: Ending): string {
  return signalCode === null ? `exit ${exitCode}\n` : `signal ${signalCode}\n`;
}

/** The ending a report names; null for anything else (an init killed before it wrote one writes nothing). */
export function parseEnding(report: string): Ending | null {
  const match = /^(exit (\d+)|signal (\w[\w+-]*))\n$/.exec(report);
  if (match === null) return null;
  const [, , code, signal] = match;
  return signal === undefined ? { exitCode: Number(code), signalCode: null } : { exitCode: null, signalCode: signal };
}

/**
 * The ending the init reported on `fd` (the parent's end of its fd 3: `child.stdio[3]`),
 * read to the end of the stream, which comes when the init and the `unshare` before it are
 * gone; null when it reported none (or the stream cannot be read). Bun closes that descriptor itself when the child is
 * collected, so the caller must not.
 */
export async function readEnding(fd: number): Promise<Ending | null> {
  const report = await Bun.file(fd)
    .text()
    .catch(() => "");
  return parseEnding(report);
}
