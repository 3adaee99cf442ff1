/**
 * The workspace: the one folder file tools may touch. Every path a tool receives goes
 * through `resolve`, which follows symlinks (of the target and of every parent, existing
 * or not yet existing) and refuses anything whose real path leaves the root.
 */
import { realpathSync, statSync } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { PathEscapeError, WorkspaceError } from "./errors.ts";
import { fileSystemError } from "./file-checks.ts";

const MAX_LINK_DEPTH = 40;

export class Workspace {
  private constructor(
    /** The real, absolute path of the root folder. */
    readonly root: string,
  ) {}

  /**
   * Opens a workspace at an absolute folder, resolved to its real path.
   * Throws a `WorkspaceError` when it is relative, missing or a file. Its two looks at the
   * folder are made at once, not handed to Bun's file threads: an app opens its workspace as
   * it starts, where the first asynchronous file operation of the process costs milliseconds.
   */
  static async open(root: string): Promise<Workspace> {
    if (!isAbsolute(root)) {
      throw new WorkspaceError(
        `Workspace must be an absolute path, got "${root}". Pass an absolute folder or resolve it first.`,
      );
    }
    let real: string;
    try {
      real = realpathSync(root);
    } catch {
      throw new WorkspaceError(
        `Workspace folder does not exist: ${root}. Create it or point --workspace at an existing folder.`,
      );
    }
    if (!statSync(real).isDirectory()) {
      throw new WorkspaceError(
        `Workspace is not a folder: ${root}. Point --workspace at a folder.`,
      );
    }
    return new Workspace(real);
  }

  /**
   * The real absolute path for `path` (relative to the root, or absolute inside it).
   * Throws `PathEscapeError` (`Path escapes workspace: PATH`) for `..` that climbs out,
   * absolute paths elsewhere, symlinks that lead out and NUL bytes; a `ToolError` for an
   * operating-system failure on the way (a name too long, a folder it may not search).
   */
  async resolve(path: string): Promise<string> {
    if (path.includes("\0")) throw new PathEscapeError(path);
    const candidate = resolve(this.root, path);
    if (!this.contains(candidate)) throw new PathEscapeError(path);
    const real = await realPathOf(candidate, 0).catch((error: unknown) => {
      if (isErrno(error, "ELOOP")) throw new PathEscapeError(path);
      throw fileSystemError(error, path);
    });
    if (!this.contains(real)) throw new PathEscapeError(path);
    return real;
  }

  /** Whether an absolute path lies inside the root (lexically). */
  contains(absolute: string): boolean {
    return absolute === this.root || absolute.startsWith(this.root.endsWith(sep) ? this.root : this.root + sep);
  }

  /** `absolute` relative to the root, `.` for the root itself: the form shown to the model. */
  relative(absolute: string): string {
    return relative(this.root, absolute) || ".";
  }
}

/** realpath that also works for paths that do not exist yet, following dangling links. */
async function realPathOf(path: string, depth: number): Promise<string> {
  if (depth > MAX_LINK_DEPTH) throw Object.assign(new Error(`Too many links: ${path}`), { code: "ELOOP" });
  try {
    return await realpath(path);
  } catch (error) {
    if (!isErrno(error, "ENOENT") && !isErrno(error, "ENOTDIR")) throw error;
  }
  const link = await lstat(path).catch(() => undefined);
  if (link?.isSymbolicLink()) {
    const target = await readlink(path);
    return realPathOf(resolve(dirname(path), target), depth + 1);
  }
  const parent = dirname(path);
  if (parent === path) return path;
  return join(await realPathOf(parent, depth), basename(path));
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
