/**
 * `.gitignore` and `.ignore` files, each applying to its own folder and below, as git reads
 * them: a deeper file overrides a shallower one (`!keep.log` re-includes), and nothing under
 * an ignored folder comes back. The rule syntax is the `ignore` package's (git's).
 */
import { lstat, readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import ignore, { type Ignore } from "ignore";

/** The ignore files read in each folder, in order of precedence (later wins). */
export const IGNORE_FILES: readonly string[] = [".gitignore", ".ignore"];

/** An ignore file larger than this is not read: real ones are a few KiB. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

interface Rules {
  /** The folder the rules belong to, relative to the root (`""` for the root). */
  readonly folder: string;
  readonly matcher: Ignore;
}

/** The rules of every ignore file read for one call, answering per path. */
export class IgnoreRules {
  readonly #byFolder: ReadonlyMap<string, Ignore>;
  readonly #inScope = new Map<string, readonly Rules[]>();
  readonly #folderIgnored = new Map<string, boolean>([["", false]]);

  private constructor(byFolder: ReadonlyMap<string, Ignore>) {
    this.#byFolder = byFolder;
  }

  /**
   * Reads the ignore files of `folders` (relative to `root`), once each. Files that are
   * symlinks, unreadable or oversized are skipped.
   */
  static async read(root: string, folders: Iterable<string>): Promise<IgnoreRules> {
    const byFolder = new Map<string, Ignore>();
    await Promise.all(
      [...folders].map(async (folder) => {
        const texts = await Promise.all(IGNORE_FILES.map((name) => readRegularFile(join(root, folder, name))));
        const present = texts.filter((text) => text !== undefined);
        // One `add` per file: given an array, `ignore` takes each string as one rule.
        if (present.length > 0) byFolder.set(folder, present.reduce((rules, text) => rules.add(text), ignore()));
      }),
    );
    return new IgnoreRules(byFolder);
  }

  /** Whether no ignore file was found, so nothing is ignored. */
  get empty(): boolean {
    return this.#byFolder.size === 0;
  }

  /** Whether the file at `path` (relative to the root) is ignored. */
  ignoresFile(path: string): boolean {
    const folder = parentOf(path);
    return this.isFolderIgnored(folder) || this.#verdict(path, folder, "");
  }

  private isFolderIgnored(folder: string): boolean {
    const known = this.#folderIgnored.get(folder);
    if (known !== undefined) return known;
    const parent = parentOf(folder);
    const ignored = this.isFolderIgnored(parent) || this.#verdict(folder, parent, "/");
    this.#folderIgnored.set(folder, ignored);
    return ignored;
  }

  /**
   * The last word of the rules above `path` (in `folder`, itself not ignored), deepest file
   * last. A file whose rules ignore `folder` itself is not asked: a deeper file re-included
   * that folder, and `ignore` would answer for the folder rather than for `path`.
   */
  #verdict(path: string, folder: string, suffix: string): boolean {
    let ignored = false;
    for (const rules of this.#rulesFor(folder)) {
      const result = rules.matcher.test(relativeTo(rules.folder, path) + suffix);
      if (result.unignored) ignored = false;
      else if (result.ignored && !(rules.folder !== folder && rules.matcher.ignores(`${relativeTo(rules.folder, folder)}/`))) {
        ignored = true;
      }
    }
    return ignored;
  }

  /** The rules that apply inside `folder`: its own and its ancestors', root first. */
  #rulesFor(folder: string): readonly Rules[] {
    const known = this.#inScope.get(folder);
    if (known !== undefined) return known;
    const inherited = folder === "" ? [] : this.#rulesFor(parentOf(folder));
    const own = this.#byFolder.get(folder);
    const rules = own === undefined ? inherited : [...inherited, { folder, matcher: own }];
    this.#inScope.set(folder, rules);
    return rules;
  }
}

/**
 * The folders whose ignore files govern a scan but which it did not list: each search
 * folder (a static pattern's is never listed) and its ancestors up to the root. Every folder
 * below a search folder that holds a match was listed on the way to it.
 */
export function foldersToProbe(searchFolders: readonly string[], listed: ReadonlySet<string>): Set<string> {
  const probe = new Set<string>();
  const seen = new Set<string>();
  for (const searched of searchFolders) {
    for (let folder = searched; !seen.has(folder); folder = parentOf(folder)) {
      seen.add(folder);
      if (!listed.has(folder)) probe.add(folder);
      if (folder === "") break;
    }
  }
  return probe;
}

/** The folders among `folders` (relative to `root`) that hold an ignore file. */
export async function foldersWithIgnoreFiles(root: string, folders: Iterable<string>): Promise<string[]> {
  const found = await Promise.all(
    [...folders].map(async (folder) => {
      const stats = await Promise.all(IGNORE_FILES.map((name) => lstat(join(root, folder, name)).catch(() => undefined)));
      return stats.some((entry) => entry?.isFile()) ? folder : undefined;
    }),
  );
  return found.filter((folder) => folder !== undefined);
}

async function readRegularFile(path: string): Promise<string | undefined> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isFile() || stats.size > MAX_IGNORE_FILE_BYTES) return undefined;
  return readFile(path, "utf8").catch(() => undefined);
}

function parentOf(path: string): string {
  const parent = dirname(path);
  return parent === "." ? "" : parent;
}

function relativeTo(folder: string, path: string): string {
  return folder === "" ? path : path.slice(folder.length + 1);
}
