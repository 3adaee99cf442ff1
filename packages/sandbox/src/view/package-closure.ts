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
 * confined process may write (the workspace). With `keptIn` (a file), each folder's closure
 * is also kept between processes, and used again while every folder it listed and every
 * file it read is unchanged (a first start walks the packages; later ones only stat what
 * the walk read). The file must lie where no confined process may write: a forged entry
 * would widen a view.
 */
export function codeClosure(folders: readonly string[], writable: readonly string[], keptIn?: string): CodeClosure {
  const kept = keptIn === undefined ? undefined : keptClosures(keptIn);
  const parts = folders.map((folder) => memoized(folder, writable, kept));
  if (kept?.changed === true && keptIn !== undefined) keep(keptIn, kept.entries);
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

/** Closures a file keeps: enough for the hosts of a few apps and workspaces, small enough to read at every start. */
const KEPT_CLOSURES = 32;

/** The closures kept in a file, and whether this process changed them. */
interface Kept {
  readonly entries: Record<string, Walked>;
  changed: boolean;
}

/**
 * One folder's closure, kept for the process (and in `kept`, between processes) while
 * nothing its walk read changed: an app starts many hosts whose code shares most of its
 * dependencies.
 */
const remembered = new Map<string, Walked>();

function memoized(folder: string, writable: readonly string[], kept: Kept | undefined): Part {
  const key = `${folder}\0${writable.join("\0")}`;
  const known = remembered.get(key) ?? kept?.entries[key];
  if (known !== undefined && unchanged(known.read)) {
    remembered.set(key, known);
    return known.part;
  }
  const walked = closureOf(folder, writable);
  remembered.set(key, walked);
  if (kept !== undefined) {
    // The newest last; the oldest go past KEPT_CLOSURES (each workspace is a key of its own).
    delete kept.entries[key];
    kept.entries[key] = walked;
    for (const old of Object.keys(kept.entries).slice(0, -KEPT_CLOSURES)) delete kept.entries[old];
    kept.changed = true;
  }
  return walked.part;
}

/** Whether every path a walk read is as it was. */
function unchanged(read: Readonly<Record<string, string>>): boolean {
  for (const [path, stamped] of Object.entries(read)) if (stampOf(path) !== stamped) return false;
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

/** The file as this process last read or wrote it, and its stamp then: read again only once another process has written it (each write renames a new file into place, a new inode). */
const lastRead = new Map<string, { readonly stamp: string; readonly entries: Record<string, Walked> }>();

function keptClosures(file: string): Kept {
  const stamp = stampOf(file);
  const known = lastRead.get(file);
  if (known !== undefined && known.stamp === stamp) return { entries: { ...known.entries }, changed: false };
  try {
    const entries = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (typeof entries === "object" && entries !== null && !Array.isArray(entries)) {
      lastRead.set(file, { stamp, entries: entries as Record<string, Walked> });
      return { entries: { ...(entries as Record<string, Walked>) }, changed: false };
    }
  } catch {
    // None kept yet, or unreadable: walked afresh.
  }
  return { entries: {}, changed: false };
}

/** Writes the closures whole or not at all; a failure only costs the next start a walk. */
function keep(file: string, entries: Record<string, Walked>): void {
  const staging = `${file}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(staging, JSON.stringify(entries), { mode: 0o600 });
    renameSync(staging, file);
    lastRead.set(file, { stamp: stampOf(file), entries: { ...entries } });
  } catch {
    try {
      rmSync(staging, { force: true });
    } catch {
      // Nowhere to write: nothing was staged.
    }
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
    const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;
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
