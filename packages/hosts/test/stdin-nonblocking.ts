/**
 * Preloaded into a host program by host-main.test.ts: makes its stdin non-blocking (O_NONBLOCK
 * on fd 0), as a program that read it before the host (a Bun stream on it) can leave it.
 */
import { lazyLibc } from "@plugboard/core/libc";

const F_GETFL = 3;
const F_SETFL = 4;
const O_NONBLOCK = 0o4000;

const libc = lazyLibc({ fcntl: { args: ["i32", "i32", "i32"], returns: "i32" } })();
if (libc === null) throw new Error("libc could not be opened");
const flags = libc.fcntl(0, F_GETFL, 0);
if (flags < 0 || libc.fcntl(0, F_SETFL, flags | O_NONBLOCK) < 0) throw new Error("fd 0 could not be made non-blocking");
