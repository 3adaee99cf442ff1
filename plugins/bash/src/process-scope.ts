/**
 * Where a command's processes live: a PID namespace of their own when `unshare` can make
 * one, so that every descendant — daemons, `setsid`, double forks, `nohup` included — is
 * killed by the kernel when the shell (the namespace's first process) ends or is killed.
 * Without one, only the command's process group can be killed.
 */

/** `unshare` flags for a PID namespace whose first process dies with `unshare` itself. */
const PID_NAMESPACE = ["--pid", "--fork", "--kill-child"];
/** The same, for a user without privileges: a user namespace mapping them to themselves. */
const PID_NAMESPACE_AS_USER = ["--user", "--map-current-user", ...PID_NAMESPACE];

let scope: readonly string[] | undefined;

/**
 * The argv prefix that runs a command in its own PID namespace, or `[]` where none can be
 * made. Probed once per process (a few milliseconds, on the first command).
 */
export function processScope(): readonly string[] {
  scope ??= probe();
  return scope;
}

function probe(): readonly string[] {
  const unshare = Bun.which("unshare");
  if (process.platform !== "linux" || unshare === null) return [];
  for (const flags of [PID_NAMESPACE, PID_NAMESPACE_AS_USER]) {
    const prefix = [unshare, ...flags];
    const result = Bun.spawnSync([...prefix, "true"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    if (result.exitCode === 0) return prefix;
  }
  return [];
}
