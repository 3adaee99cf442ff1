/**
 * Whether the confining step may run its program in its own process instead of `execve`:
 * only when the confinement covers every thread of it. Landlock, the capability sets and
 * `no_new_privs` bind the calling thread alone, and the step installs its seccomp filter last,
 * on that thread alone too (no `TSYNC`). A thread that holds the filter was therefore started
 * after it, from the confined thread, and inherited everything; one that does not was started
 * before (Bun's JIT compiler, its heap's helpers) and holds none of it. So the step runs in
 * place only when every thread shows the filter, no capability and `no_new_privs`; otherwise
 * `execve` leaves the confined thread alone, as it always did.
 */
import { readdirSync, readFileSync } from "node:fs";

/**
 * The variables the confining step starts with so that Bun runs it on one thread (no JIT
 * compiler thread, no thread warming the heap's blocks), and removes before its program runs.
 * Without them the step still confines, by `execve`.
 */
export const ONE_THREAD: Readonly<Record<string, string>> = {
  BUN_JSC_useConcurrentJIT: "0",
  BUN_JSC_useWarmUpMarkedBlocks: "0",
};

/** The capability sets of a thread's status, each of which must be empty. */
const CAPABILITY_SETS = ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"];

/** The names of this process's threads not covered by its confinement (none: every thread is); a thread gone meanwhile is not counted. */
export function unconfinedThreads(): string[] {
  return readdirSync("/proc/self/task").flatMap((task) => {
    let status: string;
    try {
      status = readFileSync(`/proc/self/task/${task}/status`, "utf8");
    } catch {
      return [];
    }
    return confined(status) ? [] : [/^Name:\s*(.*)$/m.exec(status)?.[1] ?? task];
  });
}

/** Whether a thread's `/proc/…/status` shows the seccomp filter, `no_new_privs` and no capability. */
export function confined(status: string): boolean {
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)$`, "m").exec(status)?.[1];
  return field("Seccomp") === "2" && field("NoNewPrivs") === "1" && CAPABILITY_SETS.every((set) => /^0+$/.test(field(set) ?? ""));
}
