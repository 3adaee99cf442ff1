/**
 * The code a program needs besides its own folder, resolved by the app to real paths: each
 * package's declared dependencies (found as Node and Bun find them, through the nearest
 * `node_modules`), their dependencies in turn, and the `package.json` / `tsconfig.json`
 * files Bun reads on the way up. Only declared dependencies are followed; a link that lies
 * in a folder a confined process may write is followed only to a target inside such a
 * folder, so no plugin can widen another one's view by planting a link.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { readRegularText } from "@plugboard/core/internal";
import { isWithin } from "./view.ts";

const CONFIG_FILES = ["package.json", "tsconfig.json", "tsconfig.base.json", "bunfig.toml", "jsconfig.json"];
const DEPENDENCY_FIELDS = ["dependencies", "optionalDependencies", "peerDependencies"] as const;

/** What the view must hold for code in some folders. */
export interface CodeClosure {
  /** Real folders (packages, and the `node_modules` folders above them) to bind read-only. */
  readonly folders: readonly string[];
  /** Real files (configuration Bun reads up the tree) to bind read-only. */
  readonly files: readonly string[];
  /** Links a resolver follows (a `node_modules/NAME` that is a link, or lies under one), with their real targets. */
  readonly links: readonly { readonly path: string; readonly target: string }[];
  /** Links not followed: they lie where a confined process may write and lead elsewhere. */
  readonly refused: readonly { readonly path: string; readonly target: string }[];
}

/**
 * The closure of the code in `folders` (files or folders). `writable` are the folders a
 * confined process may write (the workspace). With `keptIn` (a folder), each folder's closure
 * is also kept between processes, a file each, and used again while every folder it listed
 * and every file it read is unchanged (a first start walks the packages; later ones read only
 * the closures they need and stat what those walks read). The folder must lie where no
 * confined process may write: a forged entry would widen a view.
 */
export function codeClosure(folders: readonly string[], writable: readonly string[], keptIn?: string): CodeClosure {
  // Each path stamped once per closure: the folders' walks share most of what they read (core, TypeBox).
  const stamps = new Map<string, string>();
  const parts = folders.map((folder) => memoized(folder, writable, keptIn, stamps));
  const modules = parts.flatMap((part) => part.modules);
  const covered = (path: string) => modules.some((folder) => path !== folder && isWithin(path, folder));
  const unique = <T>(items: T[], key: (item: T) => string) => [...new Map(items.map((item) => [key(item), item])).values()];
  return {
    folders: [...new Set(parts.flatMap((part) => part.folders))].filter((folder) => !covered(folder)),
    files: [...new Set(parts.flatMap((part) => part.files))],
    links: unique(parts.flatMap((part) => [...part.links]), (link) => link.path),
    refused: unique(parts.flatMap((part) => [...part.refused]), (link) => link.path),
  };
}

interface Part extends CodeClosure {
  readonly modules: readonly string[];
}

/** A folder's closure with what its walk read: each folder listed or looked into and each file read, stamped. */
interface Walked {
  readonly part: Part;
  readonly read: Readonly<Record<string, string>>;
}

/** Closures kept: enough for the hosts of a few apps and workspaces (each workspace is a key of its own), the oldest removed beyond. */
const KEPT_CLOSURES = 32;

/** What a kept closure's file holds: its key too, so that two keys of one name are told apart. */
interface KeptClosure {
  readonly key: string;
  readonly walked: Walked;
}

/**
 * One folder's closure, kept for the process (and in `keptIn`, between processes) while
 * nothing its walk read changed: an app starts many hosts whose code shares most of its
 * dependencies.
 */
const remembered = new Map<string, Walked>();

function memoized(folder: string, writable: readonly string[], keptIn: string | undefined, stamps: Map<string, string>): Part {
  const key = `${folder}\0${writable.join("\0")}`;
  const known = remembered.get(key) ?? (keptIn === undefined ? undefined : keptClosure(keptIn, key));
  if (known !== undefined && unchanged(known.read, stamps)) {
    remembered.set(key, known);
    return known.part;
  }
  const walked = closureOf(folder, writable);
  remembered.set(key, walked);
  if (keptIn !== undefined) keep(keptIn, key, walked);
  return walked.part;
}

/** The file of `key`'s closure in `folder`. */
function closureFile(folder: string, key: string): string {
  return join(folder, `${new Bun.CryptoHasher("sha256").update(key).digest("hex").slice(0, 32)}.json`);
}

/** The closure `folder` keeps for `key`, if any. */
function keptClosure(folder: string, key: string): Walked | undefined {
  try {
    const kept = JSON.parse(readFileSync(closureFile(folder, key), "utf8")) as Partial<KeptClosure>;
    return kept.key === key && typeof kept.walked === "object" && kept.walked !== null ? kept.walked : undefined;
  } catch {
    // None kept yet, or unreadable: walked afresh.
    return undefined;
  }
}

/** Writes `key`'s closure whole or not at all, then removes the oldest beyond `KEPT_CLOSURES`; a failure only costs a later start a walk. */
function keep(folder: string, key: string, walked: Walked): void {
  const file = closureFile(folder, key);
  const staging = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(staging, JSON.stringify({ key, walked } satisfies KeptClosure), { mode: 0o600 });
    renameSync(staging, file);
    const kept = readdirSync(folder)
      .filter((name) => name.endsWith(".json"))
      .map((name) => ({ path: join(folder, name), at: statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
      .sort((a, b) => b.at - a.at);
    for (const { path } of kept.slice(KEPT_CLOSURES)) rmSync(path, { force: true });
  } catch {
    try {
      rmSync(staging, { force: true });
    } catch {
      // Nowhere to write: nothing was staged.
    }
  }
}

/** Whether every path a walk read is as it was; `stamps` holds those taken already, by path. */
function unchanged(read: Readonly<Record<string, string>>, stamps: Map<string, string>): boolean {
  for (const [path, stamped] of Object.entries(read)) {
    let now = stamps.get(path);
    if (now === undefined) {
      now = stampOf(path);
      stamps.set(path, now);
    }
    if (now !== stamped) return false;
  }
  return true;
}

/**
 * What changes when a folder's entries or a file's content change: its modification time and
 * inode, or `missing` (nothing there, a file where a folder on its way was, no permission).
 */
function stampOf(path: string): string {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats === undefined ? "missing" : `${stats.mtimeMs} ${stats.ino}`;
  } catch {
    return "missing";
  }
}

function closureOf(entry: string, writable: readonly string[]): Walked {
  const read: Record<string, string> = {};
  /** Records what the walk depends on: a folder whose entries it listed, or a file it read or looked for (`missing` until it is there). */
  const saw = (path: string) => {
    read[path] ??= stampOf(path);
  };
  const packages = new Set<string>();
  const files = new Set<string>();
  const links = new Map<string, string>();
  const refused: { path: string; target: string }[] = [];
  const inWritable = (path: string) => writable.some((folder) => isWithin(path, folder));

  const modulesFolders: string[] = [];
  const visit = (folder: string) => {
    // A package inside a node_modules already readable whole is covered, with what it resolves there.
    if (modulesFolders.some((modules) => isWithin(folder, modules))) return;
    const root = packageRoot(folder, saw) ?? folder;
    if (packages.has(root)) return;
    packages.add(root);
    saw(join(root, "package.json"));
    for (let dir = root; ; dir = dirname(dir)) {
      // Each name looked for, not the folder: a folder above the code (the cache's own, a home)
      // gains unrelated files all the time, which must not make the closure walked again.
      for (const name of CONFIG_FILES) {
        const file = join(dir, name);
        saw(file);
        if (!existsSync(file)) continue;
        const real = realpathSync(file);
        // A link where a confined process may write may lead anywhere (a key file, `/`): only to a file in such a folder.
        if (inWritable(file) && !inWritable(real)) refused.push({ path: file, target: real });
        else if (lstatSync(real).isFile()) files.add(real);
      }
      visitModules(join(dir, "node_modules"));
      if (dirname(dir) === dir) break;
    }
    for (const name of dependencies(root)) {
      const found = locate(root, name, saw);
      if (found === undefined) continue;
      let target: string;
      try {
        target = realpathSync(found);
      } catch {
        continue;
      }
      if (target !== found) {
        saw(dirname(target));
        if (inWritable(found) && !inWritable(target)) {
          refused.push({ path: found, target });
          continue;
        }
        links.set(found, target);
      }
      visit(target);
    }
  };
  /**
   * A `node_modules` above the code: resolvers look there for undeclared (hoisted) packages
   * too, so it is readable whole. Its links are followed only where no confined process may
   * write it; in the workspace only declared dependencies are.
   */
  const visitModules = (modules: string) => {
    saw(modules);
    if (!existsSync(modules)) return;
    const real = realpathSync(modules);
    if (inWritable(modules) && !inWritable(real)) {
      refused.push({ path: modules, target: real });
      return;
    }
    if (packages.has(real)) return;
    packages.add(real);
    modulesFolders.push(real);
    if (real !== modules) links.set(modules, real);
    if (inWritable(real)) return;
    saw(real);
    for (const link of linkedPackages(real, saw)) {
      try {
        visit(realpathSync(link));
      } catch {
        // A dangling link leads nowhere to read.
      }
    }
  };
  if (existsSync(entry)) {
    const real = realpathSync(entry);
    visit(lstatSync(real).isDirectory() ? real : dirname(real));
  }
  const part = { modules: modulesFolders, folders: [...packages], files: [...files], links: [...links].map(([path, target]) => ({ path, target })), refused };
  return { part, read };
}

/** The nearest folder at or above `folder` with a package.json (each one looked for is recorded, present or not). */
function packageRoot(folder: string, saw: (path: string) => void): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    saw(join(dir, "package.json"));
    if (existsSync(join(dir, "package.json"))) return dir;
    if (dirname(dir) === dir) return undefined;
  }
}

function dependencies(root: string): string[] {
  try {
    const manifest = JSON.parse(readRegularText(join(root, "package.json"))) as Record<string, unknown>;
    const names = new Set<string>();
    for (const field of DEPENDENCY_FIELDS) {
      const listed = manifest[field];
      if (typeof listed === "object" && listed !== null) for (const name of Object.keys(listed)) names.add(name);
    }
    return [...names];
  } catch {
    return [];
  }
}

/** Where `name` is found from `root`: `node_modules/NAME` in the package's folder or the nearest ancestor's. */
function locate(root: string, name: string, saw: (path: string) => void): string | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    // Where a package would appear: its folder's entries (a scope's, for a scoped name).
    saw(dirname(candidate));
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The links among `modules`' packages (`NAME` and `@scope/NAME`): workspace packages, linked installs. */
function linkedPackages(modules: string, saw: (path: string) => void): string[] {
  const found: string[] = [];
  const visit = (folder: string, depth: number) => {
    saw(folder);
    for (const entry of safeReaddir(folder)) {
      const path = join(folder, entry);
      if (entry.startsWith("@") && depth === 0) visit(path, 1);
      else if (lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink()) found.push(path);
    }
  };
  visit(modules, 0);
  return found;
}

function safeReaddir(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
