/**
 * The init of a command's PID namespace: `bun init.ts PROGRAM ARGS...` as its first process.
 * The kernel drops the signals sent to an init from inside its namespace (unless it handles
 * them) and gives it every orphan, so the user's program must not be the init: this runs it
 * as a child (stdin,
 * stdout, stderr, cwd and environment inherited), reaps the orphans reparented here, and
 * when the program ends writes how on fd 3 (`ending.ts`), then exits with its code (128+N
 * after signal N). Its exit kills whatever is left in the namespace.
 *
 * Started for every command, so it stays tiny: nothing but Bun, `bun:ffi` (libc.ts) and `node:os`.
 */
import { constants } from "node:os";
import { FFIType } from "bun:ffi";
import { type Ending, formatEnding, REPORT_FD } from "./ending.ts";
import { lazyLibc } from "./libc.ts";

// waitid(2) and waitpid(2) constants (Linux).
const P_ALL = 0;
const WNOHANG = 1;
const WEXITED = 4;
const WNOWAIT = 0x01000000;

/** Not glibc (musl): none, and orphans stay zombies until the namespace ends with the program. */
const openLibc = lazyLibc({
  waitid: { args: [FFIType.i32, FFIType.u32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
  waitpid: { args: [FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
});

const program = process.argv.slice(2);
let ending: Ending;
try {
  const child = Bun.spawn(program, { stdio: ["inherit", "inherit", "inherit"] });
  const reap = orphanReaper(child.pid);
  // Signals coalesce and a round stops at the direct child's exit: poll as well, cheaply.
  process.on("SIGCHLD", reap);
  setInterval(reap, 200);
  await child.exited;
  ending = { exitCode: child.exitCode, signalCode: child.signalCode === null ? null : String(child.signalCode) };
} catch (error) {
  process.stderr.write(`init: cannot run ${program[0] ?? "(no program)"}: ${error instanceof Error ? error.message : error}\n`);
  ending = { exitCode: 127, signalCode: null };
}
// Bun.write, not node:fs: loading node:fs would double the init's cost.
await Bun.write(Bun.file(REPORT_FD), formatEnding(ending)).catch(() => {
  // Run by hand, without fd 3: there is no one to report to.
});
process.exit(ending.signalCode === null ? (ending.exitCode ?? 1) : 128 + signalNumber(ending.signalCode));

/** `SIGTERM` → 15; Bun names a signal it does not know by its number. */
function signalNumber(signal: string): number {
  return constants.signals[signal as NodeJS.Signals] ?? Number(signal);
}

/**
 * A function that reaps every child that has exited except `direct`, whose status Bun
 * collects for `child.exited`. Bun reaps only the children it spawned, so orphans would stay
 * zombies. It peeks with `waitid(WNOWAIT)`, which leaves the status in place, and reaps
 * what it found with `waitpid`; a no-op where libc cannot be opened.
 */
function orphanReaper(direct: number): () => void {
  const libc = openLibc();
  if (libc === null) return () => {};
  // siginfo_t is 128 bytes; si_pid is at byte 16 on 64-bit Linux (the only kind Bun runs on).
  const info = new Int32Array(32);
  return () => {
    for (;;) {
      info.fill(0);
      if (libc.waitid(P_ALL, 0, info, WEXITED | WNOHANG | WNOWAIT) !== 0) return;
      const pid = info[4] ?? 0;
      // No child has exited, or the direct one has and the program's end is near.
      if (pid === 0 || pid === direct) return;
      if (libc.waitpid(pid, null, WNOHANG) !== pid) return;
    }
  };
}
