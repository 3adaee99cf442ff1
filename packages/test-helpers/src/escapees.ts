/**
 * Processes that try to outlive the shell command that started them: for testing that
 * whatever runs a command ends everything it started. `survivorsNamed` (processes.ts) then
 * says which are left.
 */

/** How many escapees `escapeesCommand` starts. */
export const ESCAPEE_COUNT = 4;

/**
 * Shell lines (each ending in a newline) starting four `sleep 300`s that try to outlive the
 * shell: a background job, `setsid`, a double fork and `nohup`. Each runs under the name
 * `marker` (so `runningNamed` finds it in /proc, and `awaitEscapeesCommand` waits for it).
 *
 * @example await call("bash", { command: `${escapeesCommand(marker)}sleep 300` })
 */
export function escapeesCommand(marker: string): string {
  const sleeper = `bash -c 'exec -a ${marker} sleep 300'`;
  return [
    `${sleeper} &`,
    `setsid ${sleeper} >/dev/null 2>&1 </dev/null &`,
    `( ( ${sleeper} & ) & )`,
    `nohup ${sleeper} >/dev/null 2>&1 &`,
  ]
    .map((line) => `${line}\n`)
    .join("");
}

/**
 * A shell line waiting until every escapee of `marker` runs under its name: what `/proc`
 * shows as each process's command line, so that `runningNamed` finds all of them as soon as
 * the line returns (a file each made just before would be there a moment too early).
 */
export function awaitEscapeesCommand(marker: string): string {
  return `while [ "$(grep -las "^${marker}" /proc/[0-9]*/cmdline | wc -l)" -lt ${ESCAPEE_COUNT} ]; do sleep 0.01; done\n`;
}

let markers = 0;

/** A name no other process on the machine has. */
export function uniqueMarker(): string {
  markers++;
  return `plugboard-escapee-${process.pid}-${markers}`;
}
