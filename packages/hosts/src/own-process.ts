/**
 * What a host does to its own process through libc: it makes itself not dumpable, keeps the
 * protocol's pipe on a descriptor of its own, and, as the first process of its PID namespace,
 * reaps the processes its plugins' programs left orphaned. Where libc cannot be opened (not
 * glibc) none of them is done.
 */
import { FFIType } from "bun:ffi";
import { lazyLibc } from "@plugboard/core/libc";

const PR_SET_DUMPABLE = 4;
const WNOHANG = 1;
const F_DUPFD_CLOEXEC = 1030;

const get = lazyLibc({
  prctl: { args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64], returns: FFIType.i32 },
  waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  fcntl: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  dup2: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  close: { args: [FFIType.i32], returns: FFIType.i32 },
});

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
 * Moves the protocol off stdout: its pipe gets a descriptor of its own, closed on exec, and
 * fd 1 becomes stderr. Whatever a plugin writes to stdout then reaches the app's log and
 * never the protocol — `process.stdout`, `console.log`, a program it starts with stdout
 * inherited — and no program a plugin starts holds the protocol's pipe. Node's
 * `process.stdout` is not made for it (replacing it costs a start milliseconds). The
 * protocol's descriptor, or undefined where libc cannot be opened (stdout stays the protocol's).
 */
export function protocolOffStdout(): number | undefined {
  const symbols = get();
  if (symbols === null) return undefined;
  const protocol = symbols.fcntl(1, F_DUPFD_CLOEXEC, 3);
  if (protocol < 0) return undefined;
  if (symbols.dup2(2, 1) === 1) return protocol;
  symbols.close(protocol);
  return undefined;
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
