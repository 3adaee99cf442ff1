/**
 * The few libc functions the sandbox needs, opened lazily through `bun:ffi` so that
 * importing this package loads nothing. Every syscall is called with one argument shape
 * (its number and six 64-bit integers; pointers passed as their address).
 */
import { ptr } from "bun:ffi";
import { ERRNO_LOCATION, lastErrno as errnoOf, lazyLibc } from "@plugboard/core/libc";

const open = lazyLibc({
  syscall: { args: ["i64", "i64", "i64", "i64", "i64", "i64", "i64"], returns: "i64" },
  prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" },
  execve: { args: ["ptr", "ptr", "ptr"], returns: "i32" },
  mount: { args: ["ptr", "ptr", "ptr", "u64", "ptr"], returns: "i32" },
  umount2: { args: ["ptr", "i32"], returns: "i32" },
  setsid: { args: [], returns: "i32" },
  ...ERRNO_LOCATION,
});

/** libc's functions; the sandbox cannot work without them. */
function get(): NonNullable<ReturnType<typeof open>> {
  const functions = open();
  if (functions === null) throw new Error("the sandbox calls the kernel through glibc's libc.so.6, which cannot be opened here");
  return functions;
}

/** Whether libc's functions can be called here (bun:ffi needs Bun's JIT and glibc). */
export function libcCallable(): boolean {
  return open() !== null;
}

/** A NUL-terminated copy of `text`, kept alive by the caller for as long as the call reads it. */
export function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`);
}

/** Thin, typed calls into libc. */
export const libc = {
  syscall: (number: bigint, a = 0n, b = 0n, c = 0n, d = 0n, e = 0n, f = 0n): bigint => BigInt(get().syscall(number, a, b, c, d, e, f)),
  prctl: (option: number, a: bigint, b: bigint, c: bigint, d: bigint): number => get().prctl(option, a, b, c, d),
  execve: (path: NodeJS.TypedArray, argv: NodeJS.TypedArray, envp: NodeJS.TypedArray): number =>
    get().execve(ptr(path), ptr(argv), ptr(envp)),
  mount: (source: Buffer | null, target: Buffer, type: Buffer | null, flags: bigint, data: Buffer | null): number =>
    get().mount(source === null ? null : ptr(source), ptr(target), type === null ? null : ptr(type), flags, data === null ? null : ptr(data)),
  umount2: (target: Buffer, flags: number): number => get().umount2(ptr(target), flags),
  setsid: (): number => get().setsid(),
  /** The address of `view`'s bytes, as a syscall argument. */
  pointer: (view: NodeJS.TypedArray | DataView): bigint => BigInt(ptr(view)),
};

/** `errno` of the last failed call on this thread. */
export function lastErrno(): number {
  return errnoOf(get());
}

/** The open flag that closes a descriptor on `execve` (for the calls that take open flags, as a syscall argument). */
export const O_CLOEXEC = 0o2000000n;

/** A new pipe's reading and writing ends (`pipe2` with `flags`), or undefined when none could be made. */
export function pipe(flags: bigint = O_CLOEXEC): readonly [read: number, write: number] | undefined {
  const fds = new Int32Array([-1, -1]);
  if (sys("pipe2", libc.pointer(fds), flags) !== 0n) return undefined;
  return [fds[0] ?? -1, fds[1] ?? -1];
}

/** The `errno` values a non-blocking call is retried or waited on for. */
export const EINTR = 4;
export const EAGAIN = 11;

/** `syscall(2)` by its name in `SYSCALLS`, on this machine's architecture. */
export function sys(name: keyof typeof SYSCALLS, a = 0n, b = 0n, c = 0n, d = 0n, e = 0n, f = 0n): bigint {
  return libc.syscall(BigInt(SYSCALLS[name]), a, b, c, d, e, f);
}

/** The machine's syscall numbers that differ between the two architectures we run on. */
export const SYSCALLS = process.arch === "arm64" ? arm64() : x64();

function x64() {
  return {
    auditArch: 0xc000003e,
    ioctl: 16,
    socket: 41,
    bind: 49,
    listen: 50,
    sendmsg: 46,
    recvmsg: 47,
    socketpair: 53,
    clone: 56,
    ptrace: 101,
    capset: 126,
    pivotRoot: 155,
    mount: 165,
    umount2: 166,
    addKey: 248,
    requestKey: 249,
    keyctl: 250,
    unshare: 272,
    perfEventOpen: 298,
    prlimit64: 302,
    setns: 308,
    processVmReadv: 310,
    processVmWritev: 311,
    bpf: 321,
    userfaultfd: 323,
    read: 0,
    write: 1,
    close: 3,
    shutdown: 48,
    fcntl: 72,
    splice: 275,
    epollPwait: 281,
    epollCreate1: 291,
    epollCtl: 233,
    pipe2: 293,
  } as const;
}

function arm64() {
  return {
    auditArch: 0xc00000b7,
    ioctl: 29,
    socket: 198,
    bind: 200,
    listen: 201,
    sendmsg: 211,
    recvmsg: 212,
    socketpair: 199,
    clone: 220,
    ptrace: 117,
    capset: 91,
    pivotRoot: 41,
    mount: 40,
    umount2: 39,
    addKey: 217,
    requestKey: 218,
    keyctl: 219,
    unshare: 97,
    perfEventOpen: 241,
    prlimit64: 261,
    setns: 268,
    processVmReadv: 270,
    processVmWritev: 271,
    bpf: 280,
    userfaultfd: 282,
    read: 63,
    write: 64,
    close: 57,
    shutdown: 210,
    fcntl: 25,
    splice: 76,
    epollPwait: 22,
    epollCreate1: 20,
    epollCtl: 21,
    pipe2: 59,
  } as const;
}

/** Syscalls numbered alike on every architecture (added after the tables were unified). */
export const COMMON_SYSCALLS = {
  ioUringSetup: 425,
  ioUringEnter: 426,
  ioUringRegister: 427,
  openTree: 428,
  moveMount: 429,
  fsopen: 430,
  fsconfig: 431,
  fsmount: 432,
  fspick: 433,
  clone3: 435,
  mountSetattr: 442,
} as const;
