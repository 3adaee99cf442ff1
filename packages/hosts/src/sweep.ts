import { readdirSync } from "node:fs";

/**
 * Once no call runs, every other process of this host's PID namespace (daemons, `setsid` and
 * double forks included) is killed. Only as the namespace's first process, where /proc lists
 * nothing but this host's own descendants.
 */
export function endOtherProcesses(): void {
  if (process.pid !== 1) return;
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 1) continue;
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}
