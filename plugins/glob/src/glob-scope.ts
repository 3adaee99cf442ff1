/**
 * Where a glob may look. The pattern and the base folder are checked before anything is
 * read: a `..` segment, an absolute pattern outside the workspace, or a static part of the
 * pattern that leads out through a symlink are refused, so nothing outside is scanned.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";
import { PathEscapeError, ToolError, type Workspace } from "@plugboard/core";
import { loadFastGlob } from "./fast-glob.ts";

/** The real folder fast-glob starts in, and the pattern relative to it. */
export interface GlobScope {
  readonly cwd: string;
  readonly pattern: string;
}

/**
 * Checks `pattern` and the base folder `path` against the workspace and returns where to
 * search. Throws `PathEscapeError` (with the model's pattern or path) or a `ToolError`.
 */
export async function globScope(workspace: Workspace, pattern: string, path: string): Promise<GlobScope> {
  if (hasParentSegment(pattern)) throw new PathEscapeError(pattern);
  const scope = isAbsolute(pattern) ? insideRoot(workspace, pattern) : { cwd: await baseFolder(workspace, path), pattern };
  const fastGlob = await loadFastGlob();
  for (const task of fastGlob.generateTasks(scope.pattern, { cwd: scope.cwd })) {
    if (task.patterns.some(hasParentSegment)) throw new PathEscapeError(pattern);
    // fast-glob reads a pattern's static part (`link/` in `link/*`) with readdir, which
    // follows symlinks, so that part must resolve inside the workspace.
    await workspace.resolve(join(scope.cwd, task.base)).catch((error: unknown) => {
      throw error instanceof PathEscapeError ? new PathEscapeError(pattern) : error;
    });
  }
  return scope;
}

/** An absolute pattern is allowed only under the root; it is then searched from the root. */
function insideRoot(workspace: Workspace, pattern: string): GlobScope {
  if (!pattern.startsWith(workspace.root + sep)) throw new PathEscapeError(pattern);
  return { cwd: workspace.root, pattern: pattern.slice(workspace.root.length + 1) || "." };
}

async function baseFolder(workspace: Workspace, path: string): Promise<string> {
  const folder = await workspace.resolve(path);
  const stats = await stat(folder).catch(() => undefined);
  if (!stats) throw new ToolError(`Folder not found: ${path}`);
  if (!stats.isDirectory()) throw new ToolError(`${path} is not a folder`);
  return folder;
}

function hasParentSegment(pattern: string): boolean {
  return pattern.split("/").includes("..");
}
