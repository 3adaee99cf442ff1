/**
 * `.gitignore` and `.ignore` files, each applying to its own folder and below, as git reads
 * them: a deeper file overrides a shallower one (`!keep.log` re-includes), and nothing under
 * an ignored folder comes back. The rule syntax is the `ignore` package's (git's).
 */
import { lstat, readFile } from "node:fs/promises";
import { join } from "node:path";
import { type FolderRules, folderRules } from "./folder-rules.ts";
import { endsWithOne } from "./name-endings.ts";

/** The ignore files read in each folder, in order of precedence (later wins). */
export const IGNORE_FILES: readonly string[] = [".gitignore", ".ignore"];

/** An ignore file larger than this is not read: real ones are a few KiB. */
const MAX_IGNORE_FILE_BYTES = 1024 * 1024;

/**
 * The rules of every ignore file read for one call, answering per path. They grow while the
 * scan lists folders: a folder's ignore files are read before any folder below it is listed,
 * so every answer about a path is given with the rules of all the folders above it.
 */
export class IgnoreRules {
  readonly #root: string;
  readonly #byFolder = new Map<string, FolderRules>();
  readonly #reads = new Map<string, Promise<void>>();
  #inScope = new Map<string, readonly FolderRules[]>();
  #folderIgnored = new Map<string, boolean>([["", false]]);

  private constructor(root: string) {
    this.#root = root;
  }

  /** Rules read from the ignore files of `folders` (relative to `root`); more can be added with `readFolder`. */
  static async read(root: string, folders: Iterable<string>): Promise<IgnoreRules> {
    const rules = new IgnoreRules(root);
    await Promise.all([...folders].map((folder) => rules.readFolder(folder)));
    return rules;
  }

  /**
   * Reads the ignore files of `folder` (relative to the root) unless they were read.
   * Files that are symlinks, unreadable or oversized are skipped.
   */
  readFolder(folder: string): Promise<void> {
    let reading = this.#reads.get(folder);
    if (reading === undefined) {
      reading = this.#add(folder);
      this.#reads.set(folder, reading);
    }
    return reading;
  }

  async #add(folder: string): Promise<void> {
    const texts = await Promise.all(IGNORE_FILES.map((name) => readRegularFile(join(this.#root, folder, name))));
    const present = texts.filter((text) => text !== undefined);
    if (present.length === 0) return;
    this.#byFolder.set(folder, folderRules(folder, present));
    // Answers are cached per folder: none given before these rules may outlive them.
    this.#inScope = new Map();
    this.#folderIgnored = new Map([["", false]]);
  }

  /** Whether no ignore file was found, so nothing is ignored. */
  get empty(): boolean {
    return this.#byFolder.size === 0;
  }

  /** Whether the file at `path` (relative to the root) is ignored. */
  ignoresFile(path: string): boolean {
    const folder = parentOf(path);
    if (this.isFolderIgnored(folder)) return true;
    let ignored = false;
    const name = path.slice(path.lastIndexOf("/") + 1);
    for (const rules of this.#rulesFor(folder)) {
      if (rules.files === undefined) continue;
      if (rules.endings !== undefined && !endsWithOne(name, rules.endings)) continue;
      // A path is tested with every rule: `ignore` first tests the folders on its way, where
      // a folder rule such as `!build/` may re-include one that a file rule `build` excludes.
      const result = rules.byName ? rules.files.test(name) : rules.all.test(relativeTo(rules.folder, path));
      ignored = this.#decide(ignored, result, rules, folder, !rules.byName);
    }
    return ignored;
  }

  /** Whether any ignore file applies inside `folder`. */
  appliesIn(folder: string): boolean {
    return this.#rulesFor(folder).length > 0;
  }

  /**
   * Whether the folder at `folder` is ignored, by its own path or an ignored folder above
   * it: git lists nothing below it, whatever a deeper file re-includes.
   */
  isFolderIgnored(folder: string): boolean {
    const known = this.#folderIgnored.get(folder);
    if (known !== undefined) return known;
    const parent = parentOf(folder);
    let ignored = this.isFolderIgnored(parent);
    if (!ignored) {
      for (const rules of this.#rulesFor(parent)) {
        ignored = this.#decide(ignored, rules.all.test(`${relativeTo(rules.folder, folder)}/`), rules, parent, true);
      }
    }
    this.#folderIgnored.set(folder, ignored);
    return ignored;
  }

  /**
   * The verdict after one file's rules, for a path in `folder` (itself not ignored): the
   * deepest file has the last word. `ignore` also answers "ignored" for a path under a
   * folder its rules ignore; when a deeper file re-included that folder, that answer is
   * about the folder, not the path, and is not taken (`wholePath`: the path was asked, not a name).
   * A rule of that file matching the path itself (`gen/**` for `gen/dist/a.js`) is then not
   * applied either, where git would: `ignore` does not tell such a match apart.
   */
  #decide(
    ignored: boolean,
    result: { ignored: boolean; unignored: boolean },
    rules: FolderRules,
    folder: string,
    wholePath: boolean,
  ): boolean {
    if (result.unignored) return false;
    if (!result.ignored) return ignored;
    if (wholePath && rules.folder !== folder && rules.all.ignores(`${relativeTo(rules.folder, folder)}/`)) return ignored;
    return true;
  }

  /** The rules that apply inside `folder`: its own and its ancestors', root first. */
  #rulesFor(folder: string): readonly FolderRules[] {
    const known = this.#inScope.get(folder);
    if (known !== undefined) return known;
    const inherited = folder === "" ? [] : this.#rulesFor(parentOf(folder));
    const own = this.#byFolder.get(folder);
    const rules = own === undefined ? inherited : [...inherited, own];
    this.#inScope.set(folder, rules);
    return rules;
  }
}

/**
 * The folders whose ignore files govern a scan before it lists anything: each search
 * folder and its ancestors up to the root. Every folder below is read while it is listed.
 */
export function foldersAbove(searchFolders: readonly string[]): Set<string> {
  const folders = new Set<string>();
  for (const searched of searchFolders) {
    for (let folder = searched; !folders.has(folder); folder = parentOf(folder)) {
      folders.add(folder);
      if (folder === "") break;
    }
  }
  return folders;
}

async function readRegularFile(path: string): Promise<string | undefined> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats?.isFile() || stats.size > MAX_IGNORE_FILE_BYTES) return undefined;
  return readFile(path, "utf8").catch(() => undefined);
}

/** `a/b/c` → `a/b`, `a` → `""`: paths here are relative, normalised, with `/`. */
function parentOf(path: string): string {
  return path.slice(0, Math.max(0, path.lastIndexOf("/")));
}

function relativeTo(folder: string, path: string): string {
  return folder === "" ? path : path.slice(folder.length + 1);
}
