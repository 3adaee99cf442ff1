/**
 * libc through `bun:ffi`, for the few calls Bun has no API for (`waitid`, `prctl`, `flock`,
 * the sandbox's system calls). Each user names the functions it needs and gets a function
 * that opens libc on its first call: importing this loads `bun:ffi` and opens nothing. Where
 * there is no glibc `libc.so.6` (musl), that function returns null, and its user does without
 * or says why it cannot.
 */
import { dlopen, type FFIFunction, read } from "bun:ffi";

/** The functions of `symbols`, callable as `bun:ffi` makes them. */
export type LibcFunctions<S extends Record<string, FFIFunction>> = ReturnType<typeof dlopen<S>>["symbols"];

/**
 * A function returning libc's functions named in `symbols`, opened on its first call; null
 * (every time) where libc cannot be opened.
 *
 * @example const libc = lazyLibc({ getpid: { args: [], returns: "i32" } }); libc()?.getpid();
 */
export function lazyLibc<const S extends Record<string, FFIFunction>>(symbols: S): () => LibcFunctions<S> | null {
  let opened: LibcFunctions<S> | null | undefined;
  return () => {
    if (opened === undefined) {
      try {
        opened = dlopen("libc.so.6", symbols).symbols;
      } catch {
        opened = null;
      }
    }
    return opened;
  };
}

/** The function `lastErrno` reads errno through: add it to the symbols of a `lazyLibc` that needs errno. */
export const ERRNO_LOCATION = { __errno_location: { args: [], returns: "ptr" } } as const;

/** errno of the last failed call on this thread, read through the functions' `__errno_location` (see `ERRNO_LOCATION`). */
export function lastErrno(functions: LibcFunctions<typeof ERRNO_LOCATION>): number {
  const location = functions.__errno_location();
  return typeof location === "number" ? read.i32(location, 0) : 0;
}
