/**
 * The control groups a confined tree's process and memory limits live in. Plugboard uses only
 * cgroups it creates, each directly below the cgroup the app itself is in (read from
 * `/proc/self/cgroup` and `/proc/self/mountinfo`), named `plugboard-PID-NS-RANDOM` after the
 * app's pid, its PID namespace and a random part (the same pid is another app's in another PID
 * namespace); it never writes to a cgroup it did not create, removes each with its tree, and
 * at its first use removes those an app that is gone left behind. A controller is used on
 * cgroup v2 where the app's cgroup hands it to its children (systemd's delegation), else on a
 * writable v1 hierarchy (a container run as root).
 */
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { isAlive } from "@plugboard/core/process";

/** The controllers the limits use. */
export type Controller = "pids" | "memory";

/** Where the app's own cgroup of a controller is: the folder its children are made in. */
export interface CgroupPlace {
  readonly version: 1 | 2;
  readonly folder: string;
}

/** For each controller, its place, or why there is none usable. */
export type CgroupSupport = Readonly<Record<Controller, CgroupPlace | { readonly lacking: string }>>;

/** The files each controller's limit and its counter of refusals are in, by version. */
const FILES: Readonly<Record<Controller, Readonly<Record<1 | 2, { readonly limit: string; readonly events: string; readonly counter: string }>>>> = {
  pids: {
    1: { limit: "pids.max", events: "pids.events", counter: "max" },
    2: { limit: "pids.max", events: "pids.events", counter: "max" },
  },
  memory: {
    1: { limit: "memory.limit_in_bytes", events: "memory.oom_control", counter: "oom_kill" },
    2: { limit: "memory.max", events: "memory.events", counter: "oom_kill" },
  },
};

/**
 * Our cgroups' names: `plugboard-PID-NS-RANDOM`, and `plugboard-PID-N` as earlier versions
 * named them (without their PID namespace).
 */
const OWN = /^plugboard-(\d+)-(\d+)(-[0-9a-f]+)?$/;

/**
 * How old an empty cgroup of an app in another PID namespace (or of unknown namespace) must
 * be before a sweep removes it: its pid means nothing here, so whether its app is gone cannot
 * be asked; a tree joins its cgroups within moments of their making and they are removed with
 * it, so one empty for this long is left behind.
 */
export const FOREIGN_GRACE_MS = 10 * 60_000;

/** The inode of this process's PID namespace (`pid:[INODE]`), read once, or undefined when it cannot be read. */
function pidNamespace(): string | undefined {
  if (namespace === null) {
    try {
      namespace = /^pid:\[(\d+)\]$/.exec(readlinkSync("/proc/self/ns/pid"))?.[1];
    } catch {
      namespace = undefined;
    }
  }
  return namespace;
}

/** This process's PID namespace (`pidNamespace`); null until read. A process keeps its PID namespace for life. */
let namespace: string | undefined | null = null;

/** Where this app may make cgroups of each controller. Reads two small files of `/proc`. */
export function cgroupSupport(): CgroupSupport {
  let memberships: string;
  let mounts: string;
  try {
    memberships = readFileSync("/proc/self/cgroup", "utf8");
    mounts = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    const lacking = { lacking: "no /proc/self/cgroup (not Linux, or no cgroups)" };
    return { pids: lacking, memory: lacking };
  }
  const mounted = mountsOf(mounts);
  const placeOf = (controller: Controller): CgroupPlace | { lacking: string } => {
    const v2 = v2Place(memberships, mounted, controller);
    if ("folder" in v2) return v2;
    const v1 = v1Place(memberships, mounted, controller);
    if ("folder" in v1) return v1;
    return { lacking: `${controller}: ${v2.lacking}; ${v1.lacking}` };
  };
  return { pids: placeOf("pids"), memory: placeOf("memory") };
}

/** The cgroups of one confined tree. */
export interface TreeCgroups {
  /**
   * The file of each cgroup the tree's first process writes `0` to, joining it: `tasks` on
   * v1, which moves only the writing thread (the one that then `execve`s the program, which
   * leaves it the only thread), and `cgroup.procs` on v2. Writing a whole process into a v1
   * cgroup (`cgroup.procs`) takes a lock that waits for an RCU grace period, often 10 ms or more.
   */
  readonly joins: readonly string[];
  /** How often each limit has refused so far (the kernel's counters). */
  refusals(): Readonly<Record<Controller, number>>;
  /** Removes the cgroups, once the tree has ended (waits a little for its last tasks to go). */
  remove(): Promise<void>;
}

let swept = false;

/**
 * Makes the cgroups of one tree with `bounds` (for each controller that has a place), after
 * removing those of apps that are gone (once per app). Throws, naming the file, when the
 * kernel refuses one.
 */
export function makeTreeCgroups(support: CgroupSupport, bounds: Readonly<Partial<Record<Controller, number>>>): TreeCgroups {
  const places = (Object.keys(bounds) as Controller[]).flatMap((controller) => {
    const place = support[controller];
    return "folder" in place ? [{ controller, place }] : [];
  });
  if (!swept) {
    swept = true;
    for (const folder of new Set(places.map(({ place }) => place.folder))) sweep(folder);
  }
  const name = `plugboard-${process.pid}-${pidNamespace() ?? 0}-${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex")}`;
  const folders = new Map<string, string>();
  const limited: { controller: Controller; folder: string; version: 1 | 2 }[] = [];
  try {
    for (const { controller, place } of places) {
      const folder = join(place.folder, name);
      if (!folders.has(folder)) {
        mkdirSync(folder);
        folders.set(folder, join(folder, place.version === 1 ? "tasks" : "cgroup.procs"));
      }
      limited.push({ controller, folder, version: place.version });
      writeFileSync(join(folder, FILES[controller][place.version].limit), String(bounds[controller]));
    }
  } catch (error) {
    for (const folder of folders.keys()) removeNow(folder);
    throw error;
  }
  return {
    joins: [...folders.values()],
    refusals: () => {
      const counts = { pids: 0, memory: 0 };
      for (const { controller, folder, version } of limited) counts[controller] = counter(join(folder, FILES[controller][version].events), FILES[controller][version].counter);
      return counts;
    },
    remove: async () => {
      for (const folder of folders.keys()) {
        // A task that has just been killed leaves its cgroup a moment later: usually within a
        // millisecond or two, so the waits start short (1, 2, 4, 8, 16 ms, then 20 ms; about 1 s in all).
        for (let attempt = 0; attempt < 55 && !removeNow(folder); attempt++) await Bun.sleep(Math.min(20, 2 ** attempt));
      }
    },
  };
}

/** Removes `folder` (an empty cgroup); false while tasks remain in it. A cgroup already gone counts as removed. */
function removeNow(folder: string): boolean {
  try {
    rmdirSync(folder);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/**
 * Removes the cgroups in `folder` that apps which are gone left behind: those of this PID
 * namespace whose app's pid has ended, and those of another (or of an earlier version, which
 * did not name it) empty for `FOREIGN_GRACE_MS`. One still holding tasks stays (the kernel
 * refuses to remove it).
 */
export function sweep(folder: string): void {
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  const here = pidNamespace();
  for (const name of names) {
    const [, owner, namespace, random] = OWN.exec(name) ?? [];
    if (owner === undefined) continue;
    const pid = Number(owner);
    const ours = random !== undefined && here !== undefined && namespace === here;
    if (ours && pid === process.pid) continue;
    // An earlier version's name: its pid is taken as this namespace's, as that version did.
    const gone = (ours || random === undefined) && pid !== process.pid && !isAlive(pid);
    if (gone || (!ours && olderThan(join(folder, name), FOREIGN_GRACE_MS))) removeNow(join(folder, name));
  }
}

/** Whether `folder` was made (last changed) more than `ms` ago; false when it cannot be read. */
function olderThan(folder: string, ms: number): boolean {
  try {
    return Date.now() - statSync(folder).mtimeMs > ms;
  } catch {
    return false;
  }
}

/** The number after `name` in a `name N` lines file; 0 when it cannot be read. */
function counter(file: string, name: string): number {
  try {
    const line = readFileSync(file, "utf8")
      .split("\n")
      .find((entry) => entry.startsWith(`${name} `));
    return Number(line?.slice(name.length + 1) ?? 0) || 0;
  } catch {
    return 0;
  }
}

/** A cgroup file system mounted here: where, which part of its hierarchy, its version and (v1) its controllers. */
interface CgroupMount {
  readonly point: string;
  readonly root: string;
  readonly version: 1 | 2;
  readonly options: readonly string[];
}

function mountsOf(mountinfo: string): CgroupMount[] {
  return mountinfo.split("\n").flatMap((line) => {
    const [before, after] = line.split(" - ");
    const fields = before?.split(" ") ?? [];
    const [type, , superOptions = ""] = after?.split(" ") ?? [];
    const root = fields[3];
    const point = fields[4];
    if (root === undefined || point === undefined || (type !== "cgroup" && type !== "cgroup2")) return [];
    return [{ point: unescaped(point), root: unescaped(root), version: type === "cgroup2" ? 2 : 1, options: superOptions.split(",") } as const];
  });
}

/** mountinfo writes a space, tab, newline or backslash in a path as an octal escape. */
function unescaped(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, code: string) => String.fromCharCode(Number.parseInt(code, 8)));
}

/** The folder of `path` (a path in the hierarchy) under `mount`, or undefined when the mount does not show it. */
function folderOf(mount: CgroupMount, path: string): string | undefined {
  const inside = relative(mount.root, path);
  if (inside.startsWith("..")) return undefined;
  return join(mount.point, inside);
}

function v2Place(memberships: string, mounts: readonly CgroupMount[], controller: Controller): CgroupPlace | { lacking: string } {
  const path = memberships.split("\n").find((line) => line.startsWith("0::"))?.slice(3);
  const mount = mounts.find((entry) => entry.version === 2);
  if (path === undefined || mount === undefined) return { lacking: "no cgroup v2" };
  const folder = folderOf(mount, path);
  if (folder === undefined) return { lacking: "the app's cgroup v2 is not visible" };
  let delegated: string;
  try {
    delegated = readFileSync(join(folder, "cgroup.subtree_control"), "utf8");
  } catch {
    return { lacking: "the app's cgroup v2 cannot be read" };
  }
  if (!delegated.split(/\s+/).includes(controller)) return { lacking: `the app's cgroup v2 does not hand the ${controller} controller to its children (its cgroup.subtree_control does not list it)` };
  return writable(folder) ? { version: 2, folder } : { lacking: "the app's cgroup v2 is not delegated to its user (not writable)" };
}

function v1Place(memberships: string, mounts: readonly CgroupMount[], controller: Controller): CgroupPlace | { lacking: string } {
  const line = memberships.split("\n").find((entry) => entry.split(":")[1]?.split(",").includes(controller));
  const mount = mounts.find((entry) => entry.version === 1 && entry.options.includes(controller));
  if (line === undefined || mount === undefined) return { lacking: `no ${controller} cgroup v1 hierarchy` };
  const folder = folderOf(mount, line.slice(line.indexOf(":", line.indexOf(":") + 1) + 1));
  if (folder === undefined) return { lacking: `the app's ${controller} cgroup v1 is not visible` };
  return writable(folder) ? { version: 1, folder } : { lacking: `the ${controller} cgroup v1 hierarchy is not writable (run as root)` };
}

function writable(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    accessSync(join(folder, "cgroup.procs"), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
