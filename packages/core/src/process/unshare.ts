/**
 * util-linux `unshare`, the one way Plugboard makes namespaces: each namespace's flags,
 * spelled here only, and the probe that tells whether this machine lets us make them (run
 * `unshare FLAGS true`). A command's PID namespace (pid-namespace.ts) and the sandbox's
 * hosts both use them.
 */

/** The namespaces to make; none unless named. */
export interface Namespaces {
  /**
   * A user namespace, which lets a user without privileges make the others: mapping them to
   * root inside (`"root"`, who may then mount) or to themselves (`"self"`).
   */
  readonly user?: "root" | "self";
  /**
   * A PID namespace whose first process is killed with `unshare` (SIGKILL), so nothing in it
   * outlives it; `"own-proc"` adds a mount namespace whose `/proc` lists only its processes.
   */
  readonly pid?: boolean | "own-proc";
  /** An IPC namespace: no System V objects or POSIX message queues of other processes. */
  readonly ipc?: boolean;
  /** A network namespace: a loopback interface only, and that down. */
  readonly net?: boolean;
}

/**
 * `unshare`'s flags for `namespaces`, the user namespace first.
 *
 * @example unshareFlags({ pid: true }) // ["--pid", "--fork", "--kill-child"]
 */
export function unshareFlags({ user, pid = false, ipc = false, net = false }: Namespaces): string[] {
  return [
    ...(user === undefined ? [] : ["--user", user === "root" ? "--map-root-user" : "--map-current-user"]),
    ...(pid === false ? [] : ["--pid", "--fork", "--kill-child"]),
    ...(pid === "own-proc" ? ["--mount-proc"] : []),
    ...(ipc ? ["--ipc"] : []),
    ...(net ? ["--net"] : []),
  ];
}

/** The path of util-linux `unshare`; null where there is none (or this is not Linux). */
export function findUnshare(): string | null {
  return process.platform === "linux" ? Bun.which("unshare") : null;
}

/**
 * Why `unshare FLAGS true` fails here (the last line it printed), or null when it makes those
 * namespaces. Waits for it: a few milliseconds.
 */
export function whyUnshareFails(unshare: string, flags: readonly string[]): string | null {
  let probe: ReturnType<typeof Bun.spawnSync>;
  try {
    probe = Bun.spawnSync([unshare, ...flags, "true"], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  } catch (error) {
    return notRun(unshare, error);
  }
  return failure(probe.exitCode, probe.stderr?.toString() ?? "");
}

/** `whyUnshareFails`, awaited rather than waited for, so that an app does other work meanwhile. */
export async function whyUnshareFailsAsync(unshare: string, flags: readonly string[]): Promise<string | null> {
  let probe: Bun.Subprocess<"ignore", "ignore", "pipe">;
  try {
    probe = Bun.spawn([unshare, ...flags, "true"], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  } catch (error) {
    return notRun(unshare, error);
  }
  const [exitCode, stderr] = await Promise.all([probe.exited, new Response(probe.stderr).text()]);
  return failure(exitCode, stderr);
}

/** Why `unshare` could not even be started (a broken interpreter line, no permission): the system's error; anything else is thrown. */
function notRun(unshare: string, error: unknown): string {
  if (!refusedBySystem(error)) throw error;
  return `${unshare} cannot be run: ${error.message}`;
}

/**
 * Whether `error` is the system's refusal of a call (it names the call: `posix_spawn`, `open`…),
 * as when `unshare` cannot be started, not a bug of ours.
 */
export function refusedBySystem(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && "syscall" in error;
}

function failure(exitCode: number | null, stderr: string): string | null {
  if (exitCode === 0) return null;
  return stderr.trim().split("\n").at(-1) || `exit ${exitCode ?? "by a signal"}`;
}
