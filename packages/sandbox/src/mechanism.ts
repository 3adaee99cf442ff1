/**
 * Which confinement this machine offers: Landlock (filesystem, execution and TCP rights)
 * and unprivileged user + PID + network namespaces through util-linux `unshare` (a
 * private `/proc`, no network, and every descendant ended with the host). Both are needed.
 */
import { landlockAbi } from "./landlock.ts";

/** The mechanism in force, or why there is none. */
export type Mechanism =
  | { readonly available: true; readonly description: string; readonly landlockAbi: number; readonly unshare: string }
  | { readonly available: false; readonly missing: string };

/**
 * A test hook and an override: `PLUGBOARD_SANDBOX_DISABLE=landlock` (or `namespaces`)
 * makes detection report that part missing, as on a kernel without it.
 */
export const DISABLE_VARIABLE = "PLUGBOARD_SANDBOX_DISABLE";

let cached: { key: string; mechanism: Mechanism } | undefined;

/** Detects the mechanism once per process (per value of the disable variable). */
export function detectMechanism(env: Readonly<Record<string, string | undefined>> = process.env): Mechanism {
  const disabled = env[DISABLE_VARIABLE] ?? "";
  if (cached?.key === disabled) return cached.mechanism;
  const mechanism = detect(new Set(disabled.split(",").map((part) => part.trim())));
  cached = { key: disabled, mechanism };
  return mechanism;
}

function detect(disabled: ReadonlySet<string>): Mechanism {
  if (process.platform !== "linux") return { available: false, missing: `Landlock and Linux namespaces (this is ${process.platform})` };
  const abi = disabled.has("landlock") ? 0 : landlockAbi();
  if (abi < 1) return { available: false, missing: "Landlock (Linux 5.13 or later with Landlock enabled, e.g. lsm=landlock)" };
  const unshare = Bun.which("unshare");
  if (disabled.has("namespaces") || unshare === null) {
    return { available: false, missing: "util-linux unshare with unprivileged user namespaces" };
  }
  const probe = Bun.spawnSync([unshare, ...NAMESPACE_FLAGS, "--net", "true"], { stdout: "ignore", stderr: "pipe" });
  if (probe.exitCode !== 0) {
    const why = probe.stderr.toString().trim().split("\n").at(-1) ?? "";
    return { available: false, missing: `unprivileged user namespaces (unshare failed: ${why})` };
  }
  return {
    available: true,
    description: `Landlock ABI ${abi}${abi >= 4 ? "" : " (no TCP rules)"} + user, PID, mount and network namespaces`,
    landlockAbi: abi,
    unshare,
  };
}

/** The namespaces every host gets: its own user, PID and mount namespace with its own /proc. */
export const NAMESPACE_FLAGS = ["--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc"] as const;
