/**
 * One fast-glob scan of a checked scope. fast-glob reads folders through the `fs` adapter
 * given here, which shapes each listing before fast-glob sees it: it drops the folders no
 * search enters (`.git`, `node_modules`, and those the ignore files exclude, reading each
 * folder's ignore files before any folder below is listed), notes symlinks, and lists
 * nothing once the call is cancelled.
 */
import { type Dirent, readdir } from "node:fs";
import { posix } from "node:path";
import { ToolError, type Workspace } from "@plugboard/core";
import type fg from "fast-glob";
import { loadFastGlob } from "./fast-glob.ts";
import { type GlobScope, invalidPattern } from "./glob-scope.ts";
import { IGNORE_FILES, type IgnoreRules } from "./ignore-rules.ts";
import { endsWithOne } from "./name-endings.ts";
import { asFile, linksAsFiles, withoutBadLinks } from "./symlinks.ts";

/** How a scan matches. */
export interface ScanSettings {
  readonly ignore: readonly string[];
  readonly dot: boolean;
}

/**
 * The paths, relative to the workspace root, of every regular file (or symlink to a file
 * inside the workspace) matching, leaving out the folders `rules` ignore; undefined when
 * `signal` aborted the scan. Symlinked folders are never descended into, and every folder
 * the scan starts from was checked by `globScope`, so a regular file found lies inside the
 * workspace by construction: only symlinks need their real path checked.
 */
export async function scanFiles(
  workspace: Workspace,
  scope: GlobScope,
  settings: ScanSettings,
  rules: IgnoreRules | undefined,
  signal: AbortSignal,
): Promise<string[] | undefined> {
  const { names, patterns } = splitIgnore(settings.ignore, scope.pattern);
  const listing = new Listing(workspace.root, names, scope.endings, rules);
  const fastGlob = await loadFastGlob();
  let found: string[];
  try {
    found = await fastGlob(scope.pattern, {
      cwd: scope.cwd,
      dot: settings.dot,
      ignore: patterns,
      followSymbolicLinks: false,
      // A symlink reaches fast-glob shown as a file (see `Listing`), so it is matched like
      // one and never entered; which of them to keep is decided after the scan.
      onlyFiles: true,
      // Only several bases (braces) can find one path twice; the check costs a Set entry each.
      unique: scope.bases.length > 1,
      // Folders are read on Bun's thread pool while JavaScript handles earlier listings:
      // fast-glob's default (one at a time per CPU) leaves the pool waiting. On a
      // 100,000-file tree 32 at once took a third off the scan; many more was slower again.
      concurrency: CONCURRENT_LISTINGS,
      suppressErrors: true,
      fs: { readdir: shapedReaddir(listing, signal), lstat: linksAsFiles(listing.links) },
    });
  } catch (error) {
    throw error instanceof ToolError ? error : invalidPattern(scope.pattern, error);
  }
  if (signal.aborted) return undefined;
  const prefix = scope.cwd === workspace.root ? "" : `${workspace.relative(scope.cwd)}/`;
  const files = fromRoot(found, prefix, scope.normalized);
  const kept = listing.links.size === 0 ? files : await withoutBadLinks(workspace, files, listing.links);
  return signal.aborted ? undefined : kept;
}

const CONCURRENT_LISTINGS = 32;

/** What the adapter does with each listing, and the names of the symlinks it saw. */
class Listing {
  readonly links = new Set<string>();
  readonly #root: string;
  readonly #skip: ReadonlySet<string>;
  readonly #endings: readonly string[] | undefined;
  readonly #rules: IgnoreRules | undefined;

  constructor(root: string, skip: ReadonlySet<string>, endings: readonly string[] | undefined, rules: IgnoreRules | undefined) {
    this.#root = root;
    this.#skip = skip;
    this.#endings = endings;
    this.#rules = rules;
  }

  /**
   * The entries of the folder at `absolute` as fast-glob gets them: without the names the
   * `ignore` option skips, the files no pattern can match (by their endings) and the folders
   * ignore files exclude; symlinks shown as files. A folder ignore files exclude lists
   * nothing (git never looks inside one), and its ignore files are not read.
   */
  async shape(absolute: string, entries: Dirent[]): Promise<Dirent[]> {
    const folder = absolute === this.#root ? "" : absolute.slice(this.#root.length + 1);
    const rules = this.#rules;
    if (rules !== undefined) {
      if (!rules.empty && rules.isFolderIgnored(folder)) return [];
      if (entries.some(isIgnoreFile)) await rules.readFolder(folder);
    }
    const prune = rules !== undefined && !rules.empty && rules.appliesIn(folder) ? rules : undefined;
    const endings = this.#endings;
    const shaped: Dirent[] = [];
    for (const entry of entries) {
      const { name } = entry;
      if (this.#skip.has(name)) continue;
      if (entry.isFile()) {
        if (endings === undefined || endsWithOne(name, endings)) shaped.push(entry);
      } else if (entry.isDirectory()) {
        if (prune === undefined || !prune.isFolderIgnored(folder === "" ? name : `${folder}/${name}`)) shaped.push(entry);
      } else if (entry.isSymbolicLink()) {
        this.links.add(name);
        shaped.push(asFile(entry));
      } else shaped.push(entry);
    }
    return shaped;
  }
}

function isIgnoreFile({ name }: Dirent): boolean {
  return name.charCodeAt(0) === DOT && IGNORE_FILES.includes(name);
}

const DOT = 46;

type Readdir = (path: string, options: { withFileTypes: true }, done: (error: Error | null, entries: Dirent[]) => void) => void;

/** `fs.readdir` that hands fast-glob each listing as `listing` shapes it, and nothing once `signal` aborted. */
function shapedReaddir(listing: Listing, signal: AbortSignal) {
  const shaped: Readdir = (path, options, done) => {
    if (signal.aborted) {
      done(null, []);
      return;
    }
    readdir(path, options, (error, entries) => {
      if (error !== null) {
        done(error, entries);
        return;
      }
      // fast-glob passes absolute, normalised folders: the scan's bases and their children.
      listing.shape(path, entries).then(
        (kept) => done(null, kept),
        (failure: unknown) => done(failure instanceof Error ? failure : new Error(String(failure)), []),
      );
    });
  };
  // fast-glob calls readdir only with `withFileTypes: true` when `stats` is off.
  return shaped as unknown as fg.FileSystemAdapter["readdir"];
}

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
 * fast-glob's paths (relative to the search folder, written as the pattern's fixed part
 * was: `./src/a.ts` for `./src/*.ts`) as paths from the workspace root.
 */
function fromRoot(found: string[], prefix: string, normalized: boolean): string[] {
  if (normalized) return prefix === "" ? found : found.map((path) => prefix + path);
  return found.map((path) => posix.normalize(prefix + path));
}
