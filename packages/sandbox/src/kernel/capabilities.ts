/**
 * Dropping every capability of the calling thread, as the last privileged step of the
 * confining step: the mapped root of the host's user namespace needs its capabilities to
 * build the view, and nothing after. The bounding set is emptied first (so the `execve` that
 * follows grants root none back), then the ambient set; then the permitted, effective and
 * inheritable sets are zeroed. A hole in the seccomp filter is then not a privilege.
 */
import { readFileSync } from "node:fs";
import { lastErrno, libc, sys } from "./libc.ts";

const PR_CAPBSET_DROP = 24;
const PR_CAP_AMBIENT = 47;
const PR_CAP_AMBIENT_CLEAR_ALL = 4n;
const LINUX_CAPABILITY_VERSION_3 = 0x20080522;
const EINVAL = 22;

/** Empties this thread's bounding, ambient, permitted, effective and inheritable sets; throws, naming the step, on a refusal. */
export function dropCapabilities(): void {
  for (let capability = 0; capability <= lastCapability(); capability++) {
    // A capability this kernel does not know is not held.
    if (libc.prctl(PR_CAPBSET_DROP, BigInt(capability), 0n, 0n, 0n) !== 0 && lastErrno() !== EINVAL) {
      throw new Error(`dropping capability ${capability} from the bounding set failed: errno ${lastErrno()}`);
    }
  }
  if (libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0n, 0n, 0n) !== 0) throw new Error(`clearing the ambient capabilities failed: errno ${lastErrno()}`);
  // struct __user_cap_header_struct { u32 version; int pid; }, then two struct __user_cap_data_struct { u32 effective, permitted, inheritable; }, all zero.
  const header = new Uint32Array([LINUX_CAPABILITY_VERSION_3, 0]);
  const data = new Uint32Array(6);
  if (sys("capset", libc.pointer(header), libc.pointer(data)) !== 0n) throw new Error(`capset failed: errno ${lastErrno()}`);
}

let last: number | undefined;

/** The highest capability number this kernel knows (read once: the confining step asks before its rules come). */
export function lastCapability(): number {
  if (last !== undefined) return last;
  try {
    last = Number(readFileSync("/proc/sys/kernel/cap_last_cap", "utf8").trim());
  } catch {
    last = 63;
  }
  return last;
}
