/**
 * What a host does to its own process through libc: it makes itself not dumpable, and, as
 * the first process of its PID namespace, reaps the processes its plugins' programs left
 * orphaned. Where libc cannot be opened (not glibc) both do nothing.
 */
import { dlopen, FFIType } from "bun:ffi";

const PR_SET_DUMPABLE = 4;
const WNOHANG = 1;

function open() {
  try {
    return dlopen("libc.so.6", {
      prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
      waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
    }).symbols;
  } catch {
    return null;
  }
}

let libc: ReturnType<typeof open> | undefined;
function get(): ReturnType<typeof open> {
  libc ??= open();
  return libc;
}

/**
 * Makes this process not dumpable (`PR_SET_DUMPABLE` 0): the kernel then lets only a
 * process holding `CAP_SYS_PTRACE` read its memory, environment, open files and maps in
 * `/proc`, and confined processes hold no capability. A host calls it first, so that what it
 * keeps in memory — the host protocol's token above all — is not readable by the programs its
 * plugins start (they run as the same user). True when the kernel agreed.
 */
export function undumpable(): boolean {
  return get()?.prctl(PR_SET_DUMPABLE, 0n, 0n, 0n, 0n) === 0;
}

/**
 * Reaps every child of this process that has exited. A host is PID 1 of its namespace, so
 * what a plugin's program leaves behind (a background job whose shell has exited) becomes its
 * child when it ends, and would stay a zombie, counted against the tree's process limit.
 * Called only while no call runs: then every child a plugin started has been waited for, and
 * what is left is orphans (Bun collects the status of the children it spawned itself).
 */
export function reapExited(): void {
  const symbols = get();
  if (symbols === null) return;
  while (symbols.waitpid(-1, null, WNOHANG) > 0) {
    // One more reaped.
  }
}
