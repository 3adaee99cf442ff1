/**
 * Which confinement this machine offers: Landlock (filesystem, execution and TCP rights),
 * seccomp filters, and unprivileged user + PID + mount + network namespaces through
 * util-linux `unshare` (the view, a private `/proc`, no network, and every descendant
 * ended with the host). All three are needed.
 */
import { trace } from "@plugboard/core/trace";
import { findUnshare, type Namespaces, unshareFlags, whyUnshareFails, whyUnshareFailsAsync } from "@plugboard/core/process";
import { landlockAbi } from "./kernel/landlock.ts";
import { namespacesKnown, rememberNamespaces } from "./kernel/namespaces-known.ts";
import { libcCallable } from "./kernel/libc.ts";
import { seccompAvailable } from "./kernel/seccomp.ts";

/** The mechanism in force, or why there is none. */
export type Mechanism =
  | {
      readonly available: true;
      readonly description: string;
      readonly landlockAbi: number;
      readonly unshare: string;
      /** Each layer in force, one line each, as `plugboard check` prints them. */
      readonly layers: readonly string[];
      /** What this kernel lacks that a newer one would add (the other layers still cover it). */
      readonly missing: readonly string[];
    }
  | { readonly available: false; readonly missing: string };

/**
 * A test hook and an override: `PLUGBOARD_SANDBOX_DISABLE=landlock` (or `namespaces`, `seccomp`)
 * makes detection report that part missing, as on a kernel without it.
 */
export const DISABLE_VARIABLE = "PLUGBOARD_SANDBOX_DISABLE";

let cached: { key: string; mechanism: Promise<Mechanism> | Mechanism } | undefined;

/** Detects the mechanism once per process (per value of the disable variable). */
export function detectMechanism(env: Readonly<Record<string, string | undefined>> = process.env): Mechanism {
  const disabled = env[DISABLE_VARIABLE] ?? "";
  if (cached?.key === disabled && !(cached.mechanism instanceof Promise)) return cached.mechanism;
  const mechanism = detect(disabled, env, whyUnshareFails);
  cached = { key: disabled, mechanism };
  return mechanism;
}

/**
 * `detectMechanism`, with the namespace probe (a process) awaited rather than waited for,
 * so that an app does other work meanwhile. Shares its result with `detectMechanism`.
 */
export async function detectMechanismAsync(env: Readonly<Record<string, string | undefined>> = process.env, options: DetectOptions = {}): Promise<Mechanism> {
  const disabled = env[DISABLE_VARIABLE] ?? "";
  if (cached?.key === disabled) return cached.mechanism;
  const mechanism = detect(disabled, env, whyUnshareFailsAsync, options);
  cached = { key: disabled, mechanism };
  const settled = await mechanism;
  if (cached?.key === disabled) cached = { key: disabled, mechanism: settled };
  return settled;
}

/**
 * `detectMechanismAsync`, asked only when its answer is needed (the returned function), for an
 * app that has already started a process in the namespaces the probe would make (a confining
 * step started ahead: `unshareAhead`'s `unshare`, the same namespaces). When `shown()` comes
 * to say that process runs in them, they work here and no probe runs (and that yes is kept, as
 * a probe's is: namespaces-known.ts); otherwise the probe runs then. A yes kept from an earlier
 * start answers at once. The answer is shared with `detectMechanism` as the probe's is.
 */
export function detectMechanismWhenAsked(env: Readonly<Record<string, string | undefined>>, shown: () => Promise<boolean>, options: DetectOptions = {}): () => Promise<Mechanism> {
  return async () => {
    const disabled = env[DISABLE_VARIABLE] ?? "";
    const found = cached?.key === disabled ? undefined : prerequisites(disabled);
    if (found !== undefined && !("available" in found) && (await workWithoutProbe(env, found.unshare, shown, options)) && cached?.key !== disabled) {
      cached = { key: disabled, mechanism: verdict(null, found.abi, found.unshare) };
    }
    return detectMechanismAsync(env, options);
  };
}

/** Whether the namespaces work without a probe: a yes kept from an earlier start (none asked when `fresh`), else this step seen in them (that yes then kept). */
async function workWithoutProbe(env: Env, unshare: string, shown: () => Promise<boolean>, options: DetectOptions): Promise<boolean> {
  if (options.fresh !== true && namespacesKnown(env, unshare, probeFlags())) {
    // No need to wait for the step.
    trace("sandbox: namespaces known to work");
    return true;
  }
  if (!(await shown())) return false;
  trace("sandbox: namespaces shown by the step started ahead");
  rememberNamespaces(env, unshare, probeFlags());
  return true;
}

/** How detection may answer. */
export interface DetectOptions {
  /** Probe even when a yes is kept (namespaces-known.ts): `plugboard check` says what the machine offers now. @default false */
  readonly fresh?: boolean;
}

/** The probe's flags: the namespaces of a host without the network, the most any host gets. */
function probeFlags(): string[] {
  return unshareFlags({ ...HOST_NAMESPACES, net: true });
}

/** Why `unshare FLAGS true` fails, or null: core/process's probe, waited for or awaited. */
type Probe<Why> = (unshare: string, flags: readonly string[]) => Why;

type Env = Readonly<Record<string, string | undefined>>;

function detect(disabledList: string, env: Env, probe: Probe<string | null>, options?: DetectOptions): Mechanism;
function detect(disabledList: string, env: Env, probe: Probe<Promise<string | null>>, options?: DetectOptions): Promise<Mechanism>;
function detect(disabledList: string, env: Env, probe: Probe<string | null | Promise<string | null>>, options: DetectOptions = {}): Mechanism | Promise<Mechanism> {
  const found = prerequisites(disabledList);
  if ("available" in found) return found;
  const { abi, unshare } = found;
  const flags = probeFlags();
  // A yes a probe gave under the same key (namespaces-known.ts): this start need not wait for one.
  if (options.fresh !== true && namespacesKnown(env, unshare, flags)) {
    trace("sandbox: namespaces known to work");
    return verdict(null, abi, unshare);
  }
  trace("sandbox: namespace probe");
  const why = probe(unshare, flags);
  const answered = (failure: string | null) => {
    if (failure === null) rememberNamespaces(env, unshare, flags);
    return verdict(failure, abi, unshare);
  };
  return why instanceof Promise ? why.then(answered) : answered(why);
}

type Prerequisites = { readonly abi: number; readonly unshare: string } | Extract<Mechanism, { available: false }>;

/** The last answer of `prerequisites`, for its disable list: a start asks twice (a step started ahead, then detection). */
let known: { readonly key: string; readonly found: Prerequisites } | undefined;

/** What the mechanism needs besides working namespaces (the probe's part): Landlock's ABI and `unshare`, or why there is none. */
function prerequisites(disabledList: string): Prerequisites {
  if (known?.key === disabledList) return known.found;
  const found = prerequisitesNow(disabledList);
  known = { key: disabledList, found };
  return found;
}

function prerequisitesNow(disabledList: string): Prerequisites {
  const disabled = new Set(disabledList.split(",").map((part) => part.trim()));
  if (process.platform !== "linux") return { available: false, missing: `Landlock and Linux namespaces (this is ${process.platform})` };
  if (!libcCallable()) return { available: false, missing: "bun:ffi calls into glibc's libc.so.6 (bun:ffi needs glibc and Bun's JIT: unset BUN_JSC_useJIT if it is 0)" };
  const abi = disabled.has("landlock") ? 0 : landlockAbi();
  if (abi < 1) return { available: false, missing: "Landlock (Linux 5.13 or later with Landlock enabled, e.g. lsm=landlock)" };
  if (disabled.has("seccomp") || !seccompAvailable()) return { available: false, missing: "seccomp system-call filters (a kernel built with CONFIG_SECCOMP_FILTER)" };
  const unshare = findUnshare();
  if (disabled.has("namespaces") || unshare === null) {
    return { available: false, missing: "util-linux unshare with unprivileged user namespaces" };
  }
  return { abi, unshare };
}

/**
 * The `unshare` a confining step would start with, when nothing but the namespace probe
 * (which takes a process) can still rule the mechanism out: enough to start a step ahead of
 * the probe's answer (`confineAhead`), and to end it unused when the answer is no.
 */
export function unshareAhead(env: Readonly<Record<string, string | undefined>> = process.env): Extract<Mechanism, { available: true }>["unshare"] | undefined {
  const found = prerequisites(env[DISABLE_VARIABLE] ?? "");
  return "available" in found ? undefined : found.unshare;
}

/** What the namespace probe's outcome (why it failed, or null) means. */
function verdict(why: string | null, abi: number, unshare: string): Mechanism {
  // util-linux names itself (`unshare: unshare failed: …`); other failures are ours to name.
  if (why !== null) return { available: false, missing: `unprivileged user namespaces (${why.startsWith("unshare: ") ? why : `unshare failed: ${why}`})` };
  const missing = [
    ...(abi < 4 ? ["Landlock TCP rules (ABI 4, Linux 6.7; the network namespace still cuts the network)"] : []),
    ...(abi < 6 ? ["Landlock scopes for signals and abstract UNIX sockets (ABI 6, Linux 6.12; the PID and network namespaces still separate them)"] : []),
  ];
  return {
    available: true,
    description: `Landlock ABI ${abi}${abi >= 4 ? "" : " (no TCP rules)"} + user, PID, mount, IPC and network namespaces`,
    landlockAbi: abi,
    unshare,
    layers: [
      "view: a root built for each plugin (its own mount namespace): the system's folders, its code, the workspace per its grants with protected paths read-only, private /tmp, /var/tmp, /dev/shm, /run and HOME, a minimal /dev",
      `Landlock ABI ${abi}: writes and program execution per the grants${abi >= 4 ? ", TCP without network" : ""}${abi >= 6 ? ", signals and abstract UNIX sockets scoped" : ""}`,
      "seccomp: no mounts, new user namespaces, ptrace, io_uring, bpf, userfaultfd, perf_event_open, keyring or TIOCSTI; no sockets without network, only IPv4 and IPv6 ones with a narrowed network",
      "namespaces: user, PID (its own /proc; its processes end with it), mount, IPC (no System V objects or message queues of others), network (without the network grant, or with one narrowed to a list of hosts: the app's egress proxy is its only way out)",
    ],
    missing,
  };
}

/**
 * The namespaces every host gets: its own user (root inside, who mounts the view), PID (with
 * its own /proc), mount and IPC namespaces; without the `network` grant, a network one too.
 */
export const HOST_NAMESPACES = { user: "root", pid: "own-proc", ipc: true } as const satisfies Namespaces;
