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
 * `marker` (so `runningNamed` finds it in /proc) and first creates the file `marker.N` in
 * the current folder, so a command can wait until all have started.
 *
 * @example await call("bash", { command: `${escapeesCommand(marker)}sleep 300` })
 */
export function escapeesCommand(marker: string): string {
  const sleeper = (n: number) => `bash -c 'touch ${marker}.${n}; exec -a ${marker} sleep 300'`;
  return [
    `${sleeper(1)} &`,
    `setsid ${sleeper(2)} >/dev/null 2>&1 </dev/null &`,
    `( ( ${sleeper(3)} & ) & )`,
    `nohup ${sleeper(4)} >/dev/null 2>&1 &`,
  ]
    .map((line) => `${line}\n`)
    .join("");
}

/** A shell line waiting until every escapee of `marker` has started. */
export function awaitEscapeesCommand(marker: string): string {
  return `while [ "$(ls ${marker}.* 2>/dev/null | wc -l)" -lt ${ESCAPEE_COUNT} ]; do sleep 0.01; done\n`;
}

let markers = 0;

/** A name no other process on the machine has. */
export function uniqueMarker(): string {
  markers++;
  return `plugboard-escapee-${process.pid}-${markers}`;
}
