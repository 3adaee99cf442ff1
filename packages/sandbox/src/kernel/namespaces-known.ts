/**
 * The namespace probe's "yes", kept between starts: the probe (`unshare FLAGS true`, a process
 * of its own) takes 10–15 ms of a start that would otherwise not wait for any process, such as
 * `plugboard tools`. A start whose machine, boot, process and `unshare` are those of a start
 * whose probe succeeded skips it.
 *
 * What the answer depends on is the key: the boot (a kernel's settings do not survive one), the
 * user and the user namespace this process is in, every setting the kernel reads when a user
 * namespace is made (the sysctls below), this process's seccomp filters and security label,
 * and the `unshare` file and its flags. Only a "yes" is kept, one empty file per key in the
 * cache folder's `namespaces/`, never a "no": a start of a machine that could confine never
 * runs unconfined for what is kept. A kept "yes" that has become wrong (a setting outside the
 * key changed) makes a confined start fail, with `unshare`'s own words; the host that failed
 * forgets every kept answer (`forgetNamespaces`), and the next start probes again.
 * A file there can be made only by this user's unconfined processes: the cache folder is
 * protected from every confined one, as the listing cache is.
 */
import { mkdirSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { readTextBounded } from "@plugboard/core/internal";
import { cacheFolder } from "../granted-paths.ts";

/** Bumped when what a kept answer means changes. */
const FORMAT = 1;

/** The kernel's settings that may refuse an unprivileged user namespace or one of the others. */
const SETTINGS = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/user/max_pid_namespaces",
  "/proc/sys/user/max_mnt_namespaces",
  "/proc/sys/user/max_ipc_namespaces",
  "/proc/sys/user/max_net_namespaces",
];

/** Whether a probe with exactly this key said yes. */
export function namespacesKnown(env: Readonly<Record<string, string | undefined>>, unshare: string, flags: readonly string[]): boolean {
  const file = entryFile(env, unshare, flags);
  if (file === undefined) return false;
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Keeps the probe's yes for this key; a cache that cannot be written is no error (it only spares time). */
export function rememberNamespaces(env: Readonly<Record<string, string | undefined>>, unshare: string, flags: readonly string[]): void {
  const file = entryFile(env, unshare, flags);
  if (file === undefined) return;
  try {
    mkdirSync(join(file, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(file, "");
  } catch {
    // Not kept: the next start probes.
  }
}

/** Forgets every kept answer: a confined start failed, and the next start must probe again. */
export function forgetNamespaces(env: Readonly<Record<string, string | undefined>>): void {
  const folder = cacheFolder(env);
  if (folder === undefined) return;
  try {
    rmSync(join(folder, "namespaces"), { recursive: true, force: true });
  } catch {
    // Nothing to forget, or not ours to remove: the key still changes with what it covers.
  }
}

/** The entry of this key, or undefined without a cache folder or when part of the key cannot be read. */
function entryFile(env: Readonly<Record<string, string | undefined>>, unshare: string, flags: readonly string[]): string | undefined {
  const folder = cacheFolder(env);
  if (folder === undefined) return undefined;
  let parts: unknown[];
  try {
    const found = statSync(unshare);
    parts = [
      FORMAT,
      readTextBounded("/proc/sys/kernel/random/boot_id").trim(),
      process.getuid?.(),
      process.getgid?.(),
      readlinkSync("/proc/self/ns/user"),
      // Seccomp, Seccomp_filters and NoNewPrivs: a filter this process runs under may refuse unshare(2).
      readTextBounded("/proc/self/status").split("\n").filter((line) => /^(Seccomp|Seccomp_filters|NoNewPrivs):/.test(line)),
      // This process's security label (AppArmor's profile, SELinux's context): a policy may refuse it a namespace.
      setting("/proc/self/attr/current"),
      SETTINGS.map(setting),
      [unshare, found.dev, found.ino, found.size, found.mtimeMs, found.ctimeMs],
      flags,
    ];
  } catch {
    return undefined;
  }
  const hash = new Bun.CryptoHasher("sha256").update(JSON.stringify(parts)).digest("hex");
  return join(folder, "namespaces", hash);
}

/** A kernel setting's value, or `-` where this kernel has no such setting (or no security module labels this process). */
function setting(path: string): string {
  try {
    return readTextBounded(path).trim();
  } catch {
    return "-";
  }
}
