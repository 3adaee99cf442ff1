/**
 * One fast-glob scan of a checked scope. fast-glob reads folders through the `fs` adapter
 * given here, so the scan notes, at no extra cost, which folders it read and which of them
 * hold ignore files, and it stops reading when the call is cancelled.
 */
import type { Dirent } from "node:fs";
import { readdir } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { ToolError, type Workspace } from "@plugboard/core";
import type fg from "fast-glob";
import { loadFastGlob } from "./fast-glob.ts";
import { type GlobScope, invalidPattern } from "./glob-scope.ts";
import { IGNORE_FILES } from "./ignore-rules.ts";

/** What one scan found, paths relative to the workspace root. */
export interface Scan {
  readonly files: string[];
  /** Folders fast-glob listed, relative to the root (`""` for the root). */
  readonly foldersRead: ReadonlySet<string>;
  /** Folders that hold an ignore file, relative to the root. */
  readonly ignoreFolders: ReadonlySet<string>;
}

/** How a scan matches. */
export interface ScanSettings {
  readonly ignore: readonly string[];
  readonly dot: boolean;
}

/**
 * Every regular file (or symlink to a file inside the workspace) matching; undefined when
 * `signal` aborted the scan. Symlinked folders are never descended into, and every folder
 * the scan starts from was checked by `globScope`, so a regular file found lies inside the
 * workspace by construction: only symlinks need their real path checked.
 */
export async function scanFiles(
  workspace: Workspace,
  scope: GlobScope,
  settings: ScanSettings,
  signal: AbortSignal,
): Promise<Scan | undefined> {
  const foldersRead = new Set<string>();
  const ignoreFolders = new Set<string>();
  const rootLength = workspace.root.length + 1;
  const fromRoot = (absolute: string) => absolute.slice(rootLength);
  const noteFolder = (folder: string, entries: readonly Dirent[]) => {
    const relative = folder === workspace.root ? "" : fromRoot(folder);
    foldersRead.add(relative);
    for (const { name } of entries) if (name.charCodeAt(0) === DOT && IGNORE_FILES.includes(name)) ignoreFolders.add(relative);
  };
  const { names, patterns } = splitIgnore(settings.ignore, scope.pattern);
  const fastGlob = await loadFastGlob();
  let entries: fg.Entry[];
  try {
    entries = await fastGlob(scope.pattern, {
      cwd: scope.cwd,
      dot: settings.dot,
      ignore: patterns,
      followSymbolicLinks: false,
      // Symlinked files are kept only when they lead to a file inside; fast-glob's
      // onlyFiles would drop them all, so entries are classified below instead.
      onlyFiles: false,
      objectMode: true,
      suppressErrors: true,
      // Only several bases (braces) can find one path twice; the check costs a Set entry each.
      unique: scope.bases.length > 1,
      fs: { readdir: observedReaddir(noteFolder, names, signal) },
    });
  } catch (error) {
    throw error instanceof ToolError ? error : invalidPattern(scope.pattern, error);
  }
  if (signal.aborted) return undefined;
  const prefix = scope.cwd === workspace.root ? "" : `${fromRoot(scope.cwd)}/`;
  const files: string[] = [];
  for (const entry of entries) {
    if (entry.dirent.isFile()) files.push(prefix === "" ? entry.path : prefix + entry.path);
    else if (entry.dirent.isSymbolicLink() && (await isLinkToFileInside(workspace, resolve(scope.cwd, entry.path)))) {
      files.push(prefix + entry.path);
    }
  }
  return signal.aborted ? undefined : { files, foldersRead, ignoreFolders };
}

const DOT = 46;

type Readdir = (path: string, options: { withFileTypes: true }, done: (error: Error | null, entries: Dirent[]) => void) => void;

/**
 * The `ignore` option split in two: `**\/NAME/**` patterns (the default `.git` and
 * `node_modules`) become names dropped from each listing, a string comparison per entry
 * instead of a regular expression per path; any other pattern goes to fast-glob.
 */
function splitIgnore(ignore: readonly string[], searched: string): { names: ReadonlySet<string>; patterns: string[] } {
  const names = new Set<string>();
  const patterns: string[] = [];
  for (const pattern of ignore) {
    const name = NAME_ANYWHERE.exec(pattern)?.[1];
    // A pattern naming the folder (`node_modules/pkg/*`) starts inside it, where no listing
    // shows its name: fast-glob's matching of the whole path is what skips it there.
    if (name === undefined || searched.includes(name)) patterns.push(pattern);
    else names.add(name);
  }
  return { names, patterns };
}

const NAME_ANYWHERE = /^\*\*\/([^*?[\]{}()!@+/\\]+)\/\*\*$/;

/**
 * `fs.readdir` that reports each listing, drops the entries named in `skip` (neither listed
 * nor entered, as fast-glob's ignore would), and lists nothing once `signal` aborted.
 */
function observedReaddir(note: (folder: string, entries: readonly Dirent[]) => void, skip: ReadonlySet<string>, signal: AbortSignal) {
  const observed: Readdir = (path, options, done) => {
    if (signal.aborted) {
      done(null, []);
      return;
    }
    readdir(path, options, (error, entries) => {
      if (error !== null) {
        done(error, entries);
        return;
      }
      note(resolve(path), entries);
      done(null, skip.size > 0 && entries.some(({ name }) => skip.has(name)) ? entries.filter(({ name }) => !skip.has(name)) : entries);
    });
  };
  // fast-glob calls readdir only with `withFileTypes: true` when `stats` is off.
  return observed as unknown as fg.FileSystemAdapter["readdir"];
}

/** A symlink is listed only when its real target is a file inside the workspace. */
async function isLinkToFileInside(workspace: Workspace, absolute: string): Promise<boolean> {
  const real = await realpath(absolute).catch(() => undefined);
  if (real === undefined || !workspace.contains(real)) return false;
  return (await stat(real).catch(() => undefined))?.isFile() ?? false;
}
