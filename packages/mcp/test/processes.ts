/** Process checks for tests: whether a pid still runs, read from /proc. */
import { readFileSync } from "node:fs";

/** True while `pid` runs (a zombie has ended: it only waits to be reaped). */
export function isAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  return state !== "Z" && state !== "X";
}

/** The pids still running after up to `ms` (a killed process needs a moment to be gone). */
export async function survivors(pids: readonly number[], ms = 3000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await Bun.sleep(20);
    alive = alive.filter(isAlive);
  }
  return alive;
}
