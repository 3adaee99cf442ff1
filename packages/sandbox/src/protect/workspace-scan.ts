/**
 * What in a workspace the person's own tools run or read as instructions, found by one walk
 * to a bounded depth: every `.git` (a repository's folder, or a worktree's or submodule's
 * `.git` file), and the files other tools run on their own (an editor's tasks, direnv, an
 * MCP client's servers, a shell's start-up files). The walk is made when a host starts (its
 * view keeps what it finds read-only) and after each call that could write the workspace
 * (what appeared meanwhile is shown to the person, see leftovers.ts).
 */
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";

/**
 * A repository's files that git reads as code or as where to find it: its config (and a
 * worktree's own), its hooks, `info/` (attributes and excludes), `commondir` (where the
 * config and hooks really are), its submodules' and linked worktrees' git folders. Objects,
 * refs, the index and logs are not among them: a commit writes those.
 */
export const GIT_METADATA = ["config", "config.worktree", "hooks", "info", "commondir", "modules", "worktrees"] as const;

/**
 * Files and folders other tools run on their own when a person opens the folder or starts a
 * shell in it: an editor's tasks and launch settings (`.vscode/`, `.idea/`), an MCP client's
 * servers (`.mcp.json`), direnv's `.envrc`, the global git config and the start-up files of
 * bash, sh, zsh and csh/tcsh, which matter when the workspace is (or holds) a home folder.
 */
export const OTHER_TOOLS_FOLDERS = [".vscode", ".idea"] as const;
export const OTHER_TOOLS_FILES = [
  ".mcp.json",
  ".envrc",
  ".gitconfig",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".profile",
  ".zshenv",
  ".zprofile",
  ".zshrc",
  ".zlogin",
  ".zlogout",
  ".cshrc",
  ".tcshrc",
  ".login",
  ".logout",
] as const;
const OTHER_TOOLS = new Set<string>([...OTHER_TOOLS_FOLDERS, ...OTHER_TOOLS_FILES]);

/** How deep repositories and other tools' files are looked for when no `protectDepth` sets it. */
export const DEFAULT_PROTECT_DEPTH = 8;

/** Folders the walk does not enter: installed packages (thousands of folders of code, not the person's own work). */
const NOT_ENTERED = new Set(["node_modules"]);

/** One `.git` found: its path, whether it is a folder, and which of its metadata exist. */
export interface FoundRepository {
  /** The `.git` itself. */
  readonly path: string;
  /** A folder (a repository), or a `.git` file pointing at one elsewhere (a linked worktree, a submodule). */
  readonly folder: boolean;
  /** The names of `GIT_METADATA` that exist in it. */
  readonly metadata: readonly string[];
}

/** What a walk found, in path order. */
export interface WorkspaceScan {
  readonly repositories: readonly FoundRepository[];
  /** Other tools' files and folders (absolute paths). */
  readonly otherTools: readonly string[];
  /** `.git` entries found below the depth, when the walk was asked to look further (see `scanWorkspace`'s `beyond`). */
  readonly deeper: readonly string[];
}

/**
 * Walks `workspace` to `depth` folder levels below it (not into `.git` or `node_modules`,
 * not following links). With `beyond`, it goes on that many levels more looking only for
 * `.git` entries, reported as `deeper` (for `plugboard check`).
 */
export function scanWorkspace(workspace: string, depth: number, beyond = 0): WorkspaceScan {
  return new WorkspaceWalker(workspace, depth, beyond).scan();
}

/**
 * A folder whose status changed less than this long before it was read is read again by
 * the next walk: a change in the same tick of the file system's clock may not show.
 */
const SETTLED_MS = 1000;

/** What a walk keeps of one folder: its status change time, when it was read, and what in it matters. */
interface Listing {
  readonly ctimeMs: number;
  readonly readAt: number;
  readonly gits: readonly { readonly path: string; readonly folder: boolean }[];
  readonly others: readonly string[];
  readonly folders: readonly string[];
}

/**
 * Walks a workspace again and again (after each call), reading only the folders that
 * changed since: a folder's entries change its status change time (`ctime`, which no
 * program can set back, unlike `mtime`), so an unchanged one is known from one `lstat`.
 */
export class WorkspaceWalker {
  readonly #workspace: string;
  readonly #depth: number;
  readonly #beyond: number;
  #listings = new Map<string, Listing>();
  #first: WorkspaceScan | undefined;

  constructor(workspace: string, depth: number, beyond = 0) {
    this.#workspace = workspace;
    this.#depth = depth;
    this.#beyond = beyond;
  }

  /** The workspace as it is now. */
  scan(): WorkspaceScan {
    const repositories: FoundRepository[] = [];
    const otherTools: string[] = [];
    const deeper: string[] = [];
    const seen = new Map<string, Listing>();
    const walk = (folder: string, level: number) => {
      const listing = this.#listing(folder);
      if (listing === undefined) return;
      seen.set(folder, listing);
      const within = level <= this.#depth;
      for (const git of listing.gits) {
        if (!within) deeper.push(git.path);
        else repositories.push({ ...git, metadata: git.folder ? present(git.path) : [] });
      }
      if (within) otherTools.push(...listing.others);
      if (level < this.#depth + this.#beyond) for (const inner of listing.folders) walk(inner, level + 1);
    };
    walk(this.#workspace, 0);
    this.#listings = seen;
    // In path order, whatever order the file system lists folders in.
    const byPath = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const scan = { repositories: repositories.sort((a, b) => byPath(a.path, b.path)), otherTools: otherTools.sort(byPath), deeper: deeper.sort(byPath) };
    this.#first ??= scan;
    return scan;
  }

  /** What the first walk found (the workspace as the first host saw it), or undefined before any. */
  first(): WorkspaceScan | undefined {
    return this.#first;
  }

  /** What matters in `folder`: kept when it has not changed since it was read (and had settled then), else read now. */
  #listing(folder: string): Listing | undefined {
    let ctimeMs: number;
    try {
      ctimeMs = lstatSync(folder).ctimeMs;
    } catch {
      return undefined;
    }
    const kept = this.#listings.get(folder);
    if (kept !== undefined && kept.ctimeMs === ctimeMs && ctimeMs < kept.readAt - SETTLED_MS) return kept;
    const readAt = Date.now();
    let entries: Dirent[];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return undefined;
    }
    const gits: { path: string; folder: boolean }[] = [];
    const others: string[] = [];
    const folders: string[] = [];
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.name === ".git") gits.push({ path, folder: entry.isDirectory() });
      else if (OTHER_TOOLS.has(entry.name)) others.push(path);
      else if (entry.isDirectory() && !NOT_ENTERED.has(entry.name)) folders.push(path);
    }
    return { ctimeMs, readAt, gits, others, folders };
  }
}

/** The metadata names present in the git folder `git`. */
function present(git: string): string[] {
  return GIT_METADATA.filter((name) => {
    try {
      lstatSync(join(git, name));
      return true;
    } catch {
      return false;
    }
  });
}
