/**
 * The files a program's code needs to read besides its own folder: the `node_modules`
 * folders its imports resolve through (and the real folders their links point to), and
 * the `package.json` / `tsconfig.json` files Bun reads on the way up.
 */
import { existsSync, lstatSync, readdirSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

const CONFIG_FILES = ["package.json", "tsconfig.json", "tsconfig.base.json", "bunfig.toml", "jsconfig.json"];

/**
 * The folders whose listings Bun's resolver reads to find the `node_modules` of code in
 * `folders`: from each folder up to the nearest one that has a `node_modules`.
 */
export function resolverListPaths(folders: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const folder of folders) {
    if (!existsSync(folder)) continue;
    for (let dir = realpathSync(folder); dirname(dir) !== dir; dir = dirname(dir)) {
      if (existsSync(join(dir, "node_modules"))) {
        paths.add(dir);
        break;
      }
    }
  }
  return [...paths];
}

/** Real paths to keep readable for code living in `folders` (files or folders). */
export function runtimeReadPaths(folders: readonly string[]): string[] {
  const paths = new Set<string>();
  for (const folder of folders) {
    if (!existsSync(folder)) continue;
    const real = realpathSync(folder);
    paths.add(real);
    for (let dir = real; ; dir = dirname(dir)) {
      for (const name of CONFIG_FILES) {
        const file = join(dir, name);
        if (existsSync(file)) paths.add(file);
      }
      const modules = join(dir, "node_modules");
      if (existsSync(modules)) {
        paths.add(realpathSync(modules));
        for (const target of linkedPackages(modules)) paths.add(target);
      }
      if (dirname(dir) === dir) break;
    }
  }
  return [...paths];
}

/** The real folders of the packages that `node_modules` links to (workspace packages). */
function linkedPackages(modules: string): string[] {
  const found: string[] = [];
  const visit = (folder: string, depth: number) => {
    for (const entry of safeReaddir(folder)) {
      const path = join(folder, entry);
      if (entry.startsWith("@") && depth === 0) {
        visit(path, 1);
        continue;
      }
      if (!isLink(path)) continue;
      try {
        found.push(realpathSync(path));
      } catch {
        // A dangling link leads nowhere to read.
      }
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

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
