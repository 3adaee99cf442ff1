/**
 * The view a confined process gets from its grants: read-only, the system's programs,
 * libraries and configuration, the runtime and the code it loads (see package-closure.ts);
 * the workspace per `fs.read` / `fs.write`, with the protected paths inside it read-only;
 * a private, empty `/tmp`, `/var/tmp`, `/dev/shm`, `/run` and `HOME`; a `/dev` of
 * `null`, `zero`, `full`, `random` and `urandom`; its own `/proc`. Nothing else of the
 * machine exists in it: no other user's or the user's own files, no other terminal, no
 * socket of a daemon.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import type { CodeClosure } from "./package-closure.ts";
import { depth, exists, isWithin, type View, type ViewMount } from "./view.ts";

/** What the system offers every program, read-only (a top-level link, as on merged-/usr systems, stays a link). */
const SYSTEM = ["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc", "/sys"];
/** Devices a confined process may open. */
export const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"];
/** Private, empty folders, writable with `fs.write`. */
export const PRIVATE_FOLDERS = ["/tmp", "/var/tmp", "/dev/shm", "/run"];

/** A path kept read-only inside a writable workspace, and the rule that protects it. */
export interface ProtectedPath {
  readonly path: string;
  /** As a refusal names it, e.g. `.git/hooks/ (always protected)` or `"protect": "deploy/*.key"`. */
  readonly rule: string;
  /** An exception: a folder inside a protected one that stays writable (`.plugboard/results/`). */
  readonly writable?: boolean;
}

export interface ViewOptions {
  readonly grants: ReadonlySet<string>;
  readonly workspace: string;
  readonly code: CodeClosure;
  /** Program files (the runtime and its loader, a server's command) to keep readable. */
  readonly programs: readonly string[];
  /** The `HOME` the process gets: an empty private folder at this path… */
  readonly home: string;
  /** …or this real folder, writable, mounted there (an MCP server's persistent cache). */
  readonly homeSource?: string;
  /** Paths granted besides the workspace (real, existing): read-only… */
  readonly read: readonly string[];
  /** …and writable, but for the protected paths in them. */
  readonly write: readonly string[];
  /** Links on the way to a program (a command found on PATH, `bin/bun` → `../lib/node_modules/bun/bin/bun.exe`), kept as links. */
  readonly programLinks: readonly { readonly path: string; readonly target: string }[];
  /** Paths inside the workspace (and inside the `write` grants) to keep read-only when writable. */
  readonly protect: readonly ProtectedPath[];
  readonly cwd: string;
}

/** The view for `options`. */
export function buildView(options: ViewOptions): View {
  const { grants, workspace } = options;
  const writes = grants.has("fs.write");
  const mounts: ViewMount[] = [];
  const bound: string[] = [];
  const bind = (path: string, writable: boolean, source?: string) => {
    // A writable grant inside a read-only bind is a writable bind of its own on top.
    if (bound.some((folder) => isWithin(path, folder)) && !(writable && options.write.includes(path))) return;
    bound.push(path);
    mounts.push({ kind: "bind", path, writable, ...(source === undefined ? {} : { source }) });
  };

  for (const path of SYSTEM) {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) continue;
    if (stats.isSymbolicLink()) mounts.push({ kind: "symlink", path, target: readlinkSync(path) });
    else bind(path, false);
  }
  mounts.push({ kind: "proc", path: "/proc" });
  mounts.push({ kind: "tmpfs", path: "/dev", writable: false, mode: 0o755 });
  for (const device of DEVICES) if (existsSync(device)) mounts.push({ kind: "bind", path: device, writable: true });
  for (const [name, target] of [["fd", "/proc/self/fd"], ["stdin", "/proc/self/fd/0"], ["stdout", "/proc/self/fd/1"], ["stderr", "/proc/self/fd/2"]]) {
    mounts.push({ kind: "symlink", path: `/dev/${name}`, target: target ?? "" });
  }
  for (const path of PRIVATE_FOLDERS) mounts.push({ kind: "tmpfs", path, writable: writes, mode: path === "/run" ? 0o755 : 0o1777 });
  mounts.push({ kind: "symlink", path: "/var/run", target: "/run" });
  if (grants.has("network")) {
    // resolv.conf is often a link into /run (systemd-resolved), which is private here: keep its target.
    const resolver = resolvedUnder("/etc/resolv.conf", "/run");
    if (resolver !== undefined) mounts.push({ kind: "bind", path: resolver, writable: false });
  }
  if (options.homeSource !== undefined) mounts.push({ kind: "bind", path: options.home, source: options.homeSource, writable: true });
  else mounts.push({ kind: "tmpfs", path: options.home, writable: writes, mode: 0o700 });

  const sees = grants.has("fs.read") || writes;
  if (sees) bind(workspace, writes);
  // Without either grant the workspace is an empty folder: its path still resolves, and nothing of it can be read.
  else mounts.push({ kind: "tmpfs", path: workspace, writable: false, mode: 0o755 });
  for (const path of options.write) bind(path, true);
  for (const path of options.read) bind(path, false);
  for (const program of options.programs) bind(program, false);
  // Without a workspace grant, code that is the workspace (or holds it) is not shown: it would show the workspace.
  for (const folder of options.code.folders) if (sees || !isWithin(workspace, folder)) bind(folder, false);
  for (const file of options.code.files) bind(file, false);
  for (const link of [...options.code.links, ...options.programLinks]) {
    if (!bound.some((folder) => isWithin(link.path, folder))) mounts.push({ kind: "symlink", path: link.path, target: link.target });
  }
  // Every writable root holds the protected paths a writable workspace does.
  mounts.push(...protections([...(sees && writes ? [workspace] : []), ...options.write], workspace, options.protect));

  mounts.push(...sealedParents(mounts));

  // Parents before children; entries at one depth keep their order.
  const ordered = mounts.map((entry, index) => ({ entry, index }));
  ordered.sort((a, b) => depth(a.entry.path) - depth(b.entry.path) || a.index - b.index);
  return { mounts: ordered.map(({ entry }) => entry), cwd: options.cwd };
}

/**
 * Read-only folders between a writable private folder and a bind inside it (a workspace in
 * /tmp): the folders that lead to the bind exist only in the view, and a write there (`../x`
 * from the workspace) would seem to work and be lost, so it is refused instead.
 */
function sealedParents(mounts: readonly ViewMount[]): ViewMount[] {
  const writable = mounts.filter((entry) => entry.kind === "tmpfs" && entry.writable).map((entry) => entry.path);
  const sealed = new Set<string>();
  for (const entry of mounts) {
    if (entry.kind !== "bind" && entry.kind !== "symlink") continue;
    for (const folder of writable) {
      if (!isWithin(entry.path, folder) || entry.path === folder) continue;
      const first = join(folder, entry.path.slice(folder.length + 1).split("/")[0] ?? "");
      if (first !== entry.path && !writable.some((other) => isWithin(other, first))) sealed.add(first);
    }
  }
  return [...sealed].map((path) => ({ kind: "tmpfs", path, writable: false, mode: 0o755 }));
}

/**
 * The mounts that keep `protect` read-only inside each writable root (the workspace, a
 * `write` grant): each existing path read-only, and each folder between it and the root a
 * mount point of its own, so that renaming or removing a folder cannot get round the
 * protection. A root that is itself protected (a granted `.bashrc`) is read-only whole.
 */
function protections(roots: readonly string[], workspace: string, protect: readonly ProtectedPath[]): ViewMount[] {
  const entries = new Map<string, ViewMount>();
  for (const root of roots) {
    for (const { path, rule, writable = false } of protect) {
      // The workspace itself is never read-only whole: only what lies inside it.
      const covers = root !== workspace && isWithin(root, path);
      if ((!covers && (!isWithin(path, root) || path === root)) || !exists(path)) continue;
      const at = covers ? root : path;
      for (let folder = dirname(at); folder !== root && isWithin(folder, root); folder = dirname(folder)) {
        if (!entries.has(folder)) entries.set(folder, { kind: "protect", path: folder, writable: true, rule });
      }
      if (at === root && writable) continue;
      entries.set(at, { kind: "protect", path: at, writable, rule });
    }
  }
  return [...entries.values()];
}

/** The real path `link` leads to when it lies under `folder`, else undefined. */
function resolvedUnder(link: string, folder: string): string | undefined {
  try {
    const real = realpathSync(link);
    return isWithin(real, folder) ? real : undefined;
  } catch {
    return undefined;
  }
}
