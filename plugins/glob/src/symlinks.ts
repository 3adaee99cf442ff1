/**
 * Symlinks in a scan. fast-glob is shown each symlink as a file, so it matches a link by its
 * name and never enters it; the scan notes the names of the links it saw, and after it, a
 * path with one of those names is kept only when it is a regular file or a link whose real
 * target is a file inside the workspace.
 */
import { type Dirent, type Stats, lstat } from "node:fs";
import { lstat as lstatAsync, realpath, stat } from "node:fs/promises";
import { basename, resolve } from "node:path";
import type { Workspace } from "@plugboard/core";
import type fg from "fast-glob";

/** A symlink shown as a file: fast-glob matches it by its name and never enters it. */
export function asFile<Entry extends Dirent | Stats>(link: Entry): Entry {
  return Object.assign(Object.create(link) as Entry, { isFile: () => true });
}

type Lstat = (path: string, done: (error: NodeJS.ErrnoException | null, stats: Stats) => void) => void;

/**
 * `fs.lstat`, which fast-glob calls only for a pattern's fixed paths (`src/a.ts`, each
 * alternative of `{a,b}.ts`), showing symlinks as files as listings do and adding their
 * names to `links`.
 */
export function linksAsFiles(links: Set<string>) {
  const shaped: Lstat = (path, done) => {
    lstat(path, (error, stats) => {
      if (error !== null || !stats.isSymbolicLink()) {
        done(error, stats);
        return;
      }
      links.add(basename(path));
      done(null, asFile(stats));
    });
  };
  return shaped as unknown as fg.FileSystemAdapter["lstat"];
}

/** `files` without the symlinks (by one of the names in `links`) that do not lead to a file inside. */
export async function withoutBadLinks(workspace: Workspace, files: readonly string[], links: ReadonlySet<string>): Promise<string[]> {
  const kept: string[] = [];
  for (const file of files) {
    if (!links.has(file.slice(file.lastIndexOf("/") + 1))) kept.push(file);
    else if (await isFileInside(workspace, resolve(workspace.root, file))) kept.push(file);
  }
  return kept;
}

/** A regular file, or a symlink whose real target is a file inside the workspace. */
async function isFileInside(workspace: Workspace, absolute: string): Promise<boolean> {
  const own = await lstatAsync(absolute).catch(() => undefined);
  if (own === undefined || own.isFile()) return own !== undefined;
  if (!own.isSymbolicLink()) return false;
  const real = await realpath(absolute).catch(() => undefined);
  if (real === undefined || !workspace.contains(real)) return false;
  return (await stat(real).catch(() => undefined))?.isFile() ?? false;
}
