/**
 * Makes the calling process not dumpable (`PR_SET_DUMPABLE` 0): the kernel then lets only a
 * process holding `CAP_SYS_PTRACE` read its memory, environment, open files and maps in
 * `/proc`, and confined processes hold no capability. A host calls it first, so that what it
 * keeps in memory — the host protocol's token above all — is not readable by the programs its
 * plugins start (they run as the same user). Where libc cannot be opened it does nothing.
 */
import { dlopen, FFIType } from "bun:ffi";

const PR_SET_DUMPABLE = 4;

/** Turns off dumping for this process; true when the kernel agreed. */
export function undumpable(): boolean {
  try {
    const { symbols } = dlopen("libc.so.6", { prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 } });
    return symbols.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n) === 0;
  } catch {
    // Not glibc (musl): the sandbox's other walls still stand.
    return false;
  }
}
