/** Test helpers for plugin hosts: finding them in /proc, and waiting with a deadline. */
import { readdirSync, readFileSync } from "node:fs";

/** Pids of the running processes whose command line names `workspace` (the hosts, and `unshare` before each). */
export function hostsOf(workspace: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(`"workspace":"${workspace}"`)) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Resolves once `condition` holds; throws naming `what` after `ms`. */
export async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`within ${ms} ms: ${what}`);
    await Bun.sleep(20);
  }
}
