/**
 * Builds a view (see view.ts) inside the calling process's own user and mount namespaces
 * and makes it the process's root: a new, empty memory file system receives each mount,
 * every read-only one is then made read-only by the kernel (`mount_setattr`), and the old
 * root is detached, so nothing outside the view can be reached by any path, link or `..`.
 * Run by confine-main.ts, as the mapped root of the host's user namespace; not an API.
 */
import { closeSync, lstatSync, mkdirSync, openSync, readlinkSync, rmSync, statSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { COMMON_SYSCALLS, cString, lastErrno, libc, sys } from "../kernel/libc.ts";
import { exists, type View, type ViewMount } from "./view.ts";

const MS_NOSUID = 2n;
const MS_NODEV = 4n;
const MS_NOEXEC = 8n;
const MS_BIND = 4096n;
const MS_REC = 16384n;
const MS_PRIVATE = 1n << 18n;
const MNT_DETACH = 2;
const AT_FDCWD = -100n;
const AT_RECURSIVE = 0x8000n;
const MOUNT_ATTR_RDONLY = 1n;

/** Where the old root waits while the view is built, and where the view is built. */
const OLD = "/.plugboard-old-root";
const NEW = "/.plugboard-view";

/**
 * Makes `view` this process's root, and `view.cwd` its current folder, each private memory
 * file system holding at most `tmpSize` bytes (the kernel's `size=`) when given. Throws,
 * naming the step, on a refusal.
 */
export function applyView(view: View, tmpSize?: number): void {
  mount(null, "/", null, MS_REC | MS_PRIVATE, null, "make / private");
  // A scratch root: the old one moves beneath it, so each source stays reachable at OLD + path.
  mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700", "mount the scratch root");
  mkdirSync(`/tmp${OLD}`);
  pivotRoot("/tmp", `/tmp${OLD}`);
  process.chdir("/");
  mkdirSync(NEW);
  mount("tmpfs", NEW, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755", "mount the view's root");

  for (const entry of view.mounts) applyEntry(entry, NEW + entry.path, tmpSize);
  // Read-only binds first, with what they hold; then writable ones nested in them made writable again;
  // then protected paths and read-only private folders; the view's own root last.
  for (const entry of view.mounts) if (entry.kind === "bind" && !entry.writable) setAttributes(NEW + entry.path, true, true);
  for (const entry of view.mounts) {
    if ((entry.kind === "bind" || entry.kind === "tmpfs" || entry.kind === "protect") && entry.writable) setAttributes(NEW + entry.path, false, false);
  }
  for (const entry of view.mounts) {
    if ((entry.kind === "protect" || entry.kind === "tmpfs") && !entry.writable) setAttributes(NEW + entry.path, true, entry.kind === "protect");
  }
  // Exceptions inside protected folders (and the folders that only hold protected paths) writable again.
  for (const entry of view.mounts) if (entry.kind === "protect" && entry.writable) setAttributes(NEW + entry.path, false, false);
  setAttributes(NEW, true, false);

  process.chdir(NEW);
  // The view goes on top of the scratch root; detaching the scratch root (and the old root within it) leaves the view.
  pivotRoot(".", ".");
  if (libc.umount2(cString("."), MNT_DETACH) !== 0) throw new Error(`detaching the old root failed: errno ${lastErrno()}`);
  process.chdir(view.cwd);
}

function applyEntry(entry: ViewMount, at: string, tmpSize: number | undefined): void {
  if (entry.kind !== "protect") withinView(dirname(at));
  switch (entry.kind) {
    case "bind": {
      const source = OLD + (entry.source ?? entry.path);
      mountPoint(at, statSync(source).isDirectory());
      mount(source, at, null, MS_BIND | MS_REC, null, `bind ${entry.source ?? entry.path}`);
      return;
    }
    case "tmpfs":
      mkdirSync(at, { recursive: true });
      mount("tmpfs", at, "tmpfs", MS_NOSUID | MS_NODEV, `mode=${entry.mode.toString(8)}${tmpSize === undefined ? "" : `,size=${tmpSize}`}`, `mount a private ${entry.path}`);
      return;
    case "proc":
      mkdirSync(at, { recursive: true });
      mount("proc", at, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, null, "mount /proc");
      return;
    case "symlink":
      mkdirSync(dirname(at), { recursive: true });
      link(entry.target, at);
      return;
    case "protect":
      // Inside a bind of the real folder: the path exists (it was checked when the view was made); a missing one is skipped.
      if (!exists(at)) return;
      // A link that leads out of the view protects nothing here: what it names is not in the view to be written.
      if (!existsFollowing(at)) return;
      mount(at, at, null, MS_BIND | MS_REC, null, `protect ${entry.path}`);
      return;
  }
}

/**
 * Throws when the way to `path` leads out of the view being built through a link: one a
 * confined process left in a folder the view binds writable (a server's HOME is its cache
 * folder) would have what the view creates or removes there land in the real file system,
 * reached through the old root. The links are followed as the kernel will follow them now
 * (an absolute one from the scratch root, which holds only the old root and the view).
 */
function withinView(path: string): void {
  const rest = path.slice(NEW.length).split("/").filter(Boolean);
  let at = NEW;
  for (let links = 0; rest.length > 0; ) {
    const next = join(at, rest.shift() ?? "");
    let target: string | undefined;
    try {
      target = lstatSync(next).isSymbolicLink() ? readlinkSync(next) : undefined;
    } catch {
      return; // The rest is made, inside what the way led to so far.
    }
    if (target === undefined) {
      at = next;
      continue;
    }
    const resolved = resolve(at, target);
    if (++links > 40 || (resolved !== NEW && !resolved.startsWith(`${NEW}/`))) {
      throw new Error(`${next.slice(NEW.length)} is a link out of the view, left where a confined process could write: remove it`);
    }
    rest.unshift(...resolved.slice(NEW.length).split("/").filter(Boolean));
    at = NEW;
  }
}

/**
 * A link to `target` at `at`. Inside a writable bind (a confined server's HOME is its cache
 * folder) the link is written to that folder on disk and is there at the next start, or
 * something else is, put there by the process the last view held: it is made anew.
 */
function link(target: string, at: string): void {
  try {
    if (readlinkSync(at) === target) return;
  } catch {}
  rmSync(at, { recursive: true, force: true });
  symlinkSync(target, at);
}

/** Creates the folder or empty file that a bind mounts on, inside the view's own memory file system. */
function mountPoint(at: string, folder: boolean): void {
  if (exists(at)) return;
  mkdirSync(folder ? at : dirname(at), { recursive: true });
  if (!folder) closeSync(openSync(at, "w"));
}

function existsFollowing(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

function mount(source: string | null, target: string, type: string | null, flags: bigint, data: string | null, what: string): void {
  const result = libc.mount(
    source === null ? null : cString(source),
    cString(target),
    type === null ? null : cString(type),
    flags,
    data === null ? null : cString(data),
  );
  if (result !== 0) throw new Error(`${what} failed: errno ${lastErrno()}`);
}

function pivotRoot(newRoot: string, putOld: string): void {
  const [a, b] = [cString(newRoot), cString(putOld)];
  if (sys("pivotRoot", libc.pointer(a), libc.pointer(b)) !== 0n) {
    throw new Error(`pivot_root(${newRoot}) failed: errno ${lastErrno()}`);
  }
}

/** Makes the mount at `path` read-only (`readOnly`) or writable, with the mounts beneath it when `recursive`. */
function setAttributes(path: string, readOnly: boolean, recursive: boolean): void {
  if (!exists(path)) return;
  // struct mount_attr { __u64 attr_set, attr_clr, propagation, userns_fd; }
  const attr = new BigUint64Array([readOnly ? MOUNT_ATTR_RDONLY : 0n, readOnly ? 0n : MOUNT_ATTR_RDONLY, 0n, 0n]);
  const target = cString(path);
  const result = libc.syscall(
    BigInt(COMMON_SYSCALLS.mountSetattr),
    AT_FDCWD,
    libc.pointer(target),
    recursive ? AT_RECURSIVE : 0n,
    libc.pointer(attr),
    32n,
  );
  // A writable mount of a file system that is itself read-only stays read-only: writes fail as they would outside.
  if (result !== 0n && readOnly) throw new Error(`making ${path.slice(NEW.length) || "/"} read-only failed: errno ${lastErrno()}`);
}
