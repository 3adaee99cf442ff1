/** Ending a process group or what a PID namespace holds, and waiting for something with a deadline. */

/**
 * How long to wait for a process's pipes to close once it has exited and its group is killed:
 * only a process that left the group (`setsid`) outside a PID namespace keeps them open longer.
 */
export const PIPE_GRACE_MS = 500;

/** Kills every process of the group led by `pid` with SIGKILL; a group already gone is not an error. */
export function killGroup(pid: number): void {
  sigkill(-pid);
}

/** Groups to kill when this process exits, however it exits. */
const endingWithThisProcess = new Set<number>();
let exitHook = false;

/**
 * Kills the group led by `pid` when this process exits (normally, by `process.exit`, or on a
 * signal Bun turns into an exit), so a child's tree never outlives its app; the returned
 * function forgets it once the group has ended otherwise.
 *
 * @example const forget = killGroupOnExit(child.pid); child.exited.then(forget);
 */
export function killGroupOnExit(pid: number): () => void {
  endingWithThisProcess.add(pid);
  if (!exitHook) {
    exitHook = true;
    process.on("exit", () => {
      for (const group of endingWithThisProcess) killGroup(group);
    });
  }
  return () => {
    endingWithThisProcess.delete(pid);
  };
}

/**
 * Kills (SIGKILL) every other process of the PID namespace the caller is the first process
 * of — daemons, `setsid` and double forks included, which a group kill misses — and those of
 * the namespaces nested in it; the caller goes on. Does nothing in a process that is not PID 1.
 *
 * It is `kill(-1)`, which reaches only what the caller's namespace holds and spares the caller,
 * so it needs no `/proc` of the namespace's own, as a scan of /proc would.
 *
 * @example if (runningCalls === 0) endOtherProcesses(); // a host, once no call runs
 */
export function endOtherProcesses(): void {
  if (process.pid === 1) sigkill(-1);
}

/** Whether `promise` resolves within `ms` (a rejection propagates). */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: Timer | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** SIGKILL to `kill(2)`'s `target` (a negative one names a group, or -1 all one may signal). */
function sigkill(target: number): void {
  try {
    process.kill(target, "SIGKILL");
  } catch (error) {
    // ESRCH: every process it names is already gone.
    if ((error as NodeJS.ErrnoException).code !== "ESRCH") throw error;
  }
}

/** How a supervised process group ended: by itself, past its deadline, or by its signal. */
export type GroupEnding = "exited" | "timed_out" | "cancelled";

/** What `superviseGroup` gives its caller. */
export interface GroupSupervisor {
  /** The first reason the group was stopped for; `exited` when nothing stopped it. */
  ending(): GroupEnding;
  /** Kills the group now, for `reason` unless an earlier one stands. */
  stop(reason: GroupEnding): void;
  /** Clears the deadline and the signal's listener, once the group's leader has exited. */
  release(): void;
}

/**
 * Kills (SIGKILL) the group led by `pid` when `timeoutMs` passes or `signal` aborts (at once
 * when it already has), and remembers which came first.
 *
 * @example const group = superviseGroup(child.pid, { timeoutMs, signal }); await child.exited; group.release();
 */
export function superviseGroup(pid: number, { timeoutMs, signal }: { readonly timeoutMs: number; readonly signal: AbortSignal }): GroupSupervisor {
  let ending: GroupEnding = "exited";
  const stop = (reason: GroupEnding) => {
    if (ending === "exited") ending = reason;
    killGroup(pid);
  };
  const timer = setTimeout(() => stop("timed_out"), timeoutMs);
  const onAbort = () => stop("cancelled");
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return {
    ending: () => ending,
    stop,
    release: () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
    },
  };
}

/**
 * Waits up to `PIPE_GRACE_MS` for a killed group's output streams to end, then cancels those
 * still open: only a process that left the group (`setsid`) keeps them open.
 */
export async function drainPipes(streams: readonly { readonly done: Promise<unknown>; cancel(): Promise<void> }[]): Promise<void> {
  if (!(await settlesWithin(Promise.all(streams.map((stream) => stream.done)), PIPE_GRACE_MS))) {
    await Promise.all(streams.map((stream) => stream.cancel()));
  }
}

/**
 * Whether process `pid` exists (one of another user's counts: signalling it is refused, not
 * missing). For records that name the process that made them: a span, a cgroup.
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
