/**
 * A kept conversation is continued by one process at a time: its lock is a file beside it,
 * `ID.lock`, holding the pid of the `plugboard` that has it in progress and when that process
 * started (`/proc/PID/stat`'s start time, where the system has one), and held with the
 * kernel's file lock (`flock`) for as long as that process runs. A second process that resumes
 * it is refused (two would interleave their messages in one file): the kernel's lock tells it
 * whatever PID namespace either runs in (two containers sharing one state folder), and the pid
 * tells it where there is no such lock (another system's libc, an earlier version). A lock
 * whose process is gone (a crash, a kill -9, a reboot) is taken over, also when its pid has
 * been given to another process since: that one started at another time.
 */
import { chmodSync, closeSync, constants, linkSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { PlugboardError } from "@plugboard/bootstrap";
import { ERRNO_LOCATION, lastErrno, lazyLibc } from "@plugboard/core/libc";
import { isAlive } from "@plugboard/core/process";

/** The lock of one conversation, held by this process until `release`. */
export interface ConversationLock {
  readonly id: string;
  release(): void;
}

/** Takes the lock of conversation `id` kept in `folder`; a `PlugboardError` when another live process holds it. */
export function lockConversation(folder: string, id: string): ConversationLock {
  const file = join(folder, `${id}.lock`);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    chmodSync(folder, 0o700);
  } catch {
    // A state folder that cannot be written keeps no conversation either (said when the first message is not kept): nothing to lock.
    return { id, release: () => {} };
  }
  const self = ownIdentity();
  // Twice at most: a stale lock is removed once, then the file is created anew, or another process was quicker.
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number | undefined;
    try {
      fd = openSync(file, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    if (fd !== undefined) {
      // Locked before it names anyone: another process that opened it meanwhile and locked it first refuses too (it names no one yet).
      if (kernelLock(fd) === "taken") {
        closeSync(fd);
        break;
      }
      writeSync(fd, `${self}\n`);
      return held(id, file, self, fd);
    }
    refuseOther(file);
    // A holder that keeps the kernel's lock runs, in this PID namespace or another.
    if (lockedByAnother(file)) break;
    const holder = holderOf(file);
    if (holder === self) return held(id, file, self, undefined);
    // A lock naming this process's pid but not its start time names an earlier process that had the pid: stale.
    if (holder === undefined ? !isOld(file) : isRunning(holder) && pidOf(holder) !== process.pid) break;
    if (!removeStale(file, holder)) break;
  }
  const holder = holderOf(file);
  throw new PlugboardError(
    "USAGE",
    `conversation ${id} is in use by another plugboard${holder === undefined ? "" : ` (pid ${pidOf(holder)})`}; end that session first, or start a new conversation (if no plugboard has it, remove ${file})`,
  );
}

/**
 * Removes the lock `file` if it still names `holder` (the process judged gone), and only then:
 * two processes that judged the same lock stale must not both take it over, the second removing
 * the lock the first has just made. Moved aside in one step (a rename) and looked at there, the
 * lock is put back when it turns out to be another's. False when it was another's.
 */
export function removeStale(file: string, holder: string | undefined): boolean {
  const aside = `${file}.${process.pid}.${crypto.randomUUID()}`;
  try {
    renameSync(file, aside);
  } catch {
    // Gone already: whoever removed it judged it as this process did; the next create decides.
    return true;
  }
  // No file (made one meanwhile): not removed, nor put back over what may be there now.
  if (!lstatSync(aside).isFile()) return false;
  const found = holderOf(aside);
  // Another's: back where it was.
  if (found !== holder) {
    try {
      linkSync(aside, file);
    } catch {
      // A lock is there again: the one there decides.
    }
    rmSync(aside, { force: true });
    return false;
  }
  rmSync(aside, { force: true });
  return true;
}

function held(id: string, file: string, self: string, fd: number | undefined): ConversationLock {
  const release = () => {
    process.off("exit", release);
    // Only our own: a lock taken over meanwhile (ours was judged stale) belongs to its new holder.
    if (holderOf(file) === self) rmSync(file, { force: true });
    // The kernel's lock goes with the file's last descriptor (and with the process, however it ends).
    if (fd !== undefined) closeSync(fd);
  };
  process.on("exit", release);
  return { id, release };
}

/**
 * Whether another process holds the kernel's lock on `file` (opened without following a link,
 * and without waiting on a pipe that took its place meanwhile). A file that cannot be opened or
 * locked here says nothing: the pid it names decides.
 */
function lockedByAnother(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return false;
  }
  try {
    return kernelLock(fd) === "taken";
  } finally {
    closeSync(fd);
  }
}

const LOCK_EX = 2;
const LOCK_NB = 4;
const EWOULDBLOCK = 11;

const openLibc = lazyLibc({ flock: { args: ["i32", "i32"], returns: "i32" }, ...ERRNO_LOCATION });

/**
 * Takes the kernel's exclusive lock on `fd` without waiting: `held` (this process has it),
 * `taken` (another process does), or `unsupported` (no glibc here, or a file system without
 * such locks: the pid alone decides).
 */
function kernelLock(fd: number): "held" | "taken" | "unsupported" {
  const libc = openLibc();
  if (libc === null) return "unsupported";
  if (libc.flock(fd, LOCK_EX | LOCK_NB) === 0) return "held";
  return lastErrno(libc) === EWOULDBLOCK ? "taken" : "unsupported";
}

/** The longest lock file read: a pid, a start time and its newline. */
const MAX_LOCK_BYTES = 48;

/**
 * Refuses what stands at the lock's place when it is no file (a folder, a link, a pipe, a
 * device): plugboard never makes one, reading one could wait for ever, and removing one is not
 * this process's to do.
 */
function refuseOther(file: string): void {
  let stat: ReturnType<typeof lstatSync>;
  try {
    stat = lstatSync(file);
  } catch {
    // Gone meanwhile: the next create decides.
    return;
  }
  if (stat.isFile()) return;
  const what = stat.isDirectory() ? "a folder" : stat.isSymbolicLink() ? "a link" : "not a file";
  throw new PlugboardError("USAGE", `${file} is ${what}, not a lock plugboard wrote; remove it, then continue the conversation again`);
}

/**
 * The holder a lock file names — `PID START` (or `PID` alone, where the system tells no start
 * time) — or undefined when it names none (being written, or not a lock): a regular file of
 * digits only.
 */
function holderOf(file: string): string | undefined {
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_LOCK_BYTES) return undefined;
    const text = readFileSync(file, "utf8").trim();
    const pid = /^(\d+)(?: \d+)?$/.exec(text)?.[1];
    return pid !== undefined && Number.isSafeInteger(Number(pid)) && Number(pid) > 0 ? text : undefined;
  } catch {
    return undefined;
  }
}

/** A holder's pid. */
function pidOf(holder: string): number {
  return Number(holder.split(" ")[0]);
}

/** This process as a lock names it. */
function ownIdentity(): string {
  const start = startTime(process.pid);
  return start === undefined ? `${process.pid}` : `${process.pid} ${start}`;
}

/**
 * Whether the holder still runs: its pid is alive and, when the lock says when it started, the
 * process with that pid started then (a pid given to another process since, as after a reboot,
 * is not the holder). A start time that cannot be read is not held against it.
 */
function isRunning(holder: string): boolean {
  const [pid = 0, start] = holder.split(" ").map(Number);
  if (!isAlive(pid)) return false;
  if (start === undefined) return true;
  const now = startTime(pid);
  return now === undefined || now === start;
}

/** When process `pid` started, in clock ticks since boot (`/proc/PID/stat`'s 22nd field); undefined where there is none to read. */
function startTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command's name (the 2nd field, in parentheses) may hold spaces: fields are counted after its closing parenthesis.
    const start = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    return Number.isSafeInteger(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a lock that names no pid was written long enough ago not to be one being written now. */
function isOld(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > 5_000;
  } catch {
    return true;
  }
}
