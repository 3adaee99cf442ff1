/**
 * Processes that try to outlive the shell command that started them, and a /proc census
 * of those still running: for testing that a tool ends everything its call started.
 */
import { readdirSync, readFileSync } from "node:fs";

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

/** Pids of the running (not zombie) processes whose argv[0] is `marker`, from /proc. */
export function runningNamed(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, "utf8").startsWith(`${marker}\0`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2).charAt(0);
      if (state !== "Z" && state !== "X") found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/**
 * The processes named `marker` still running after up to `ms` (a killed process needs a
 * moment to be gone). Survivors are then killed, so a failing test leaves none behind.
 */
export async function survivorsNamed(marker: string, ms = 2000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = runningNamed(marker);
  while (alive.length > 0 && Date.now() < deadline) {
    await Bun.sleep(20);
    alive = runningNamed(marker);
  }
  for (const pid of alive) process.kill(pid, "SIGKILL");
  return alive;
}
