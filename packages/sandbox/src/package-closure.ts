/**
 * The code a program needs besides its own folder, resolved by the app to real paths: each
 * package's declared dependencies (found as Node and Bun find them, through the nearest
 * `node_modules`), their dependencies in turn, and the `package.json` / `tsconfig.json`
 * files Bun reads on the way up. Only declared dependencies are followed; a link that lies
 * in a folder a confined process may write is followed only to a target inside such a
 * folder, so no plugin can widen another one's view by planting a link.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync } from "node:fs";
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
 * confined process may write (the workspace).
 */
export function codeClosure(folders: readonly string[], writable: readonly string[]): CodeClosure {
  const parts = folders.map((folder) => memoized(folder, writable));
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

/**
 * One folder's closure, kept for the process while its package.json is unchanged: an app
 * starts many hosts whose code shares most of its dependencies (the host's own package).
 */
const remembered = new Map<string, { stamp: number; part: Part }>();

function memoized(folder: string, writable: readonly string[]): Part {
  const key = `${folder}\0${writable.join("\0")}`;
  const stamp = stampOf(folder);
  const kept = remembered.get(key);
  if (kept !== undefined && kept.stamp === stamp) return kept.part;
  const part = closureOf(folder, writable);
  remembered.set(key, { stamp, part });
  return part;
}

function stampOf(folder: string): number {
  const root = existsSync(folder) ? packageRoot(realpathSync(folder)) : undefined;
  return root === undefined ? 0 : (lstatSync(join(root, "package.json"), { throwIfNoEntry: false })?.mtimeMs ?? 0);
}

function closureOf(entry: string, writable: readonly string[]): Part {
  const packages = new Set<string>();
  const files = new Set<string>();
  const links = new Map<string, string>();
  const refused: { path: string; target: string }[] = [];
  const inWritable = (path: string) => writable.some((folder) => isWithin(path, folder));

  const modulesFolders: string[] = [];
  const visit = (folder: string) => {
    // A package inside a node_modules already readable whole is covered, with what it resolves there.
    if (modulesFolders.some((modules) => isWithin(folder, modules))) return;
    const root = packageRoot(folder) ?? folder;
    if (packages.has(root)) return;
    packages.add(root);
    for (let dir = root; ; dir = dirname(dir)) {
      for (const name of CONFIG_FILES) {
        const file = join(dir, name);
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
      const found = locate(root, name);
      if (found === undefined) continue;
      let target: string;
      try {
        target = realpathSync(found);
      } catch {
        continue;
      }
      if (target !== found) {
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
    for (const link of linkedPackages(real)) {
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
  return { modules: modulesFolders, folders: [...packages], files: [...files], links: [...links].map(([path, target]) => ({ path, target })), refused };
}

/** The nearest folder at or above `folder` with a package.json. */
function packageRoot(folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
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
function locate(root: string, name: string): string | undefined {
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The links among `modules`' packages (`NAME` and `@scope/NAME`): workspace packages, linked installs. */
function linkedPackages(modules: string): string[] {
  const found: string[] = [];
  const visit = (folder: string, depth: number) => {
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
