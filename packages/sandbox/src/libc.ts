/**
 * The few libc functions the sandbox needs, opened lazily through `bun:ffi` so that
 * importing this package loads nothing. Every syscall is called with one argument shape
 * (five 64-bit integers; pointers passed as their address).
 */
import { dlopen, ptr, read } from "bun:ffi";

function open() {
  return dlopen("libc.so.6", {
    syscall: { args: ["i64", "i64", "i64", "i64", "i64"], returns: "i64" },
    prctl: { args: ["i32", "u64", "u64", "u64", "u64"], returns: "i32" },
    execve: { args: ["ptr", "ptr", "ptr"], returns: "i32" },
    __errno_location: { args: [], returns: "ptr" },
  }).symbols;
}

let symbols: ReturnType<typeof open> | undefined;
function get(): ReturnType<typeof open> {
  symbols ??= open();
  return symbols;
}

/** Thin, typed calls into libc. */
export const libc = {
  syscall: (number: bigint, a = 0n, b = 0n, c = 0n, d = 0n): bigint => BigInt(get().syscall(number, a, b, c, d)),
  prctl: (option: number, a: bigint, b: bigint, c: bigint, d: bigint): number => get().prctl(option, a, b, c, d),
  execve: (path: NodeJS.TypedArray, argv: NodeJS.TypedArray, envp: NodeJS.TypedArray): number =>
    get().execve(ptr(path), ptr(argv), ptr(envp)),
  /** The address of `view`'s bytes, as a syscall argument. */
  pointer: (view: NodeJS.TypedArray | DataView): bigint => BigInt(ptr(view)),
};

/** `errno` of the last failed call on this thread. */
export function lastErrno(): number {
  const location = get().__errno_location();
  return location === null ? 0 : read.i32(location, 0);
}
