/**
 * Seeing the files a process tree writes anywhere on the machine, not only in the folders a
 * check compares: fanotify (Linux; root or CAP_SYS_ADMIN) through `bun:ffi`, marking every
 * mounted file system for data written (`FAN_MODIFY`) and files closed after being opened for
 * writing (`FAN_CLOSE_WRITE`). Each event names the writing process; it counts when that is
 * the watched process or, while it still runs, one of its descendants.
 */
import { readFileSync, readlinkSync } from "node:fs";

/** A file written by the watched process tree: `wrote to` (data) or `opened for writing` (created or truncated, nothing written). */
export interface WrittenFile {
  readonly path: string;
  readonly operation: "wrote to" | "opened for writing";
}

/** A running watch. */
export interface WriteWatch {
  /** Stops watching; the files `pid` and its descendants wrote, each once, sorted by path. */
  stop(pid: number | undefined): WrittenFile[];
  /** Set when the kernel dropped events (its queue overflowed), so some writes may be missing. */
  readonly lost: boolean;
}

const FAN_CLOEXEC = 0x1;
const FAN_NONBLOCK = 0x2;
const O_LARGEFILE = 0x8000;
const FAN_MARK_ADD = 0x1;
const FAN_MARK_MOUNT = 0x10;
const FAN_MODIFY = 0x2n;
const FAN_CLOSE_WRITE = 0x8n;
const FAN_Q_OVERFLOW = 0x4000n;
const AT_FDCWD = -100;
/** Kernel file systems whose files are not data a plugin could leave behind. */
const PSEUDO = new Set(["proc", "sysfs", "devpts", "cgroup", "cgroup2", "mqueue", "debugfs", "tracefs", "securityfs", "pstore", "bpf", "binfmt_misc", "fusectl", "configfs", "hugetlbfs", "autofs", "nsfs", "rpc_pipefs"]);

/** Why watching is not possible here, or undefined when it is. */
export function writeWatchUnavailable(): string | undefined {
  if (process.platform !== "linux") return "it needs Linux (fanotify)";
  if (process.getuid?.() !== 0) return "it needs root (fanotify)";
  return undefined;
}

/** Starts watching every mounted file system; undefined (with nothing started) where fanotify is unavailable. */
export async function watchWrites(): Promise<WriteWatch | undefined> {
  if (writeWatchUnavailable() !== undefined) return undefined;
  const { dlopen, FFIType, ptr } = await import("bun:ffi");
  const libc = dlopen("libc.so.6", {
    fanotify_init: { args: [FFIType.u32, FFIType.u32], returns: FFIType.i32 },
    fanotify_mark: { args: [FFIType.i32, FFIType.u32, FFIType.u64, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    read: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  });
  const fd = libc.symbols.fanotify_init(FAN_CLOEXEC | FAN_NONBLOCK, O_LARGEFILE);
  if (fd < 0) {
    libc.close();
    return undefined;
  }
  let marked = 0;
  for (const mountPoint of mountPoints()) {
    const path = Buffer.from(`${mountPoint}\0`);
    if (libc.symbols.fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_MODIFY | FAN_CLOSE_WRITE, AT_FDCWD, ptr(path)) === 0) marked += 1;
  }
  if (marked === 0) {
    libc.symbols.close(fd);
    libc.close();
    return undefined;
  }

  const seen: { path: string; data: boolean; lineage: number[] }[] = [];
  const buffer = new Uint8Array(64 * 1024);
  const view = new DataView(buffer.buffer);
  const state = { lost: false };
  const drain = () => {
    for (;;) {
      const length = Number(libc.symbols.read(fd, ptr(buffer), BigInt(buffer.length)));
      if (length <= 0) return;
      for (let offset = 0; offset < length; ) {
        const eventLength = view.getUint32(offset, true);
        const mask = view.getBigUint64(offset + 8, true);
        const eventFd = view.getInt32(offset + 16, true);
        const pid = view.getInt32(offset + 20, true);
        if (mask & FAN_Q_OVERFLOW) state.lost = true;
        if (eventFd >= 0) {
          const path = pathOf(eventFd);
          libc.symbols.close(eventFd);
          if (path !== undefined && pid !== process.pid) seen.push({ path, data: (mask & FAN_MODIFY) !== 0n, lineage: lineageOf(pid) });
        }
        offset += eventLength;
      }
    }
  };
  // Often, so that a short-lived descendant's ancestry is read while it still runs.
  const timer = setInterval(drain, 5);
  return {
    get lost() {
      return state.lost;
    },
    stop(pid) {
      drain();
      clearInterval(timer);
      libc.symbols.close(fd);
      libc.close();
      if (pid === undefined) return [];
      const found = new Map<string, boolean>();
      for (const event of seen) {
        if (event.lineage.includes(pid)) found.set(event.path, (found.get(event.path) ?? false) || event.data);
      }
      return [...found]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([path, data]) => ({ path, operation: data ? "wrote to" : "opened for writing" }));
    },
  };
}

/** Every mount point of a file system that holds files (not /proc, /sys, …), from /proc/self/mounts. */
function mountPoints(): string[] {
  const lines = readFileSync("/proc/self/mounts", "utf8").split("\n");
  const points = lines
    .map((line) => line.split(" "))
    .filter(([, , type]) => type !== undefined && !PSEUDO.has(type))
    .map(([, point = ""]) => point.replace(/\\(\d{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))));
  return [...new Set(points)];
}

function pathOf(eventFd: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${eventFd}`).replace(/ \(deleted\)$/, "");
  } catch {
    return undefined;
  }
}

/** `pid`, its parent, its parent's parent, … up to init, as far as /proc still shows them. */
function lineageOf(pid: number): number[] {
  const lineage: number[] = [];
  for (let current = pid; current > 1 && lineage.length < 64; ) {
    lineage.push(current);
    const stat = readFileSafe(`/proc/${current}/stat`);
    if (stat === undefined) break;
    current = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  }
  return lineage;
}

function readFileSafe(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}
