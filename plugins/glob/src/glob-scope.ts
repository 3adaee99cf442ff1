/**
 * Where a glob may look. The pattern is expanded the way fast-glob expands it (braces,
 * separators) and every folder fast-glob would start reading from is checked, through
 * symlinks, against the workspace before anything is read: `{/etc,x}/*`, `{,/}etc/*`,
 * `ROOT//etc/*`, `../*` and `link-out/*` are refused, so nothing outside is scanned.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, posix, resolve, sep } from "node:path";
import { PathEscapeError, ToolError, type Workspace } from "@plugboard/core";
import type fg from "fast-glob";
import { braceExpansions } from "./brace-expansions.ts";
import { loadFastGlob } from "./fast-glob.ts";
import { nameEndings } from "./name-endings.ts";

/** The real folder fast-glob starts in, the pattern relative to it, and its expansion. */
export interface GlobScope {
  readonly cwd: string;
  readonly pattern: string;
  /** The folders fast-glob starts reading from, one per expanded base, as absolute paths (real ones checked). */
  readonly bases: readonly string[];
  /** Whether fast-glob's paths come out normalised (not so for a fixed part like `./src` or `src/./x`). */
  readonly normalized: boolean;
  /** What every file name a pattern can match ends with (`.ts`), or undefined (see `nameEndings`). */
  readonly endings: readonly string[] | undefined;
}

/**
 * Checks `pattern` and the base folder `path` against the workspace and returns where to
 * search. Throws `PathEscapeError` (with the model's pattern or path) or a `ToolError`
 * for a pattern fast-glob cannot expand.
 */
export async function globScope(workspace: Workspace, pattern: string, path: string): Promise<GlobScope> {
  const { cwd, relative } = isAbsolute(pattern)
    ? insideRoot(workspace, pattern)
    : { cwd: await baseFolder(workspace, path), relative: pattern };
  const tasks = expand(await loadFastGlob(), relative, cwd);
  const bases: string[] = [];
  let normalized = true;
  for (const task of tasks) {
    if (task.base !== "." && posix.normalize(task.base) !== task.base) normalized = false;
    if (task.patterns.some((expanded) => hasParentSegment(expanded) || outsideRoot(workspace, expanded))) {
      throw new PathEscapeError(pattern);
    }
    // fast-glob reads `resolve(cwd, task.base)` with readdir, which follows symlinks, so
    // that folder's real path must lie inside the workspace.
    const base = resolve(cwd, task.base);
    await workspace.resolve(base).catch((error: unknown) => {
      throw error instanceof PathEscapeError ? new PathEscapeError(pattern) : error;
    });
    bases.push(base);
  }
  return { cwd, pattern: relative, bases, normalized, endings: nameEndings(tasks.flatMap((task) => task.positive)) };
}

/** The longest pattern accepted; real ones are far shorter. */
const MAX_PATTERN_CHARS = 4096;
/**
 * The most `*` in one segment. Each becomes a lazy `[^/]*?` in the matcher's regular
 * expression, so the time to test one name grows as its length to that power: with four,
 * `*a*a*a*a*b` against a 250-character name runs for minutes, and cannot be interrupted.
 */
const MAX_STARS_PER_SEGMENT = 3;
/** The most patterns braces may expand to; fast-glob builds them all before reading. */
const MAX_EXPANSIONS = 1000;

function expand(fastGlob: typeof fg, pattern: string, cwd: string): fg.Task[] {
  if (pattern.length > MAX_PATTERN_CHARS) {
    throw invalidPattern(pattern, new Error(`${pattern.length} characters, over the limit of ${MAX_PATTERN_CHARS}`));
  }
  if (pattern.split("/").some((segment) => segment !== "**" && countStars(segment) > MAX_STARS_PER_SEGMENT)) {
    throw invalidPattern(pattern, new Error(`more than ${MAX_STARS_PER_SEGMENT} * in one path segment`));
  }
  if (braceExpansions(pattern, MAX_EXPANSIONS) > MAX_EXPANSIONS) {
    throw invalidPattern(pattern, new Error(`its braces expand to more than ${MAX_EXPANSIONS} patterns`));
  }
  let tasks: fg.Task[];
  try {
    tasks = fastGlob.generateTasks(pattern, { cwd });
  } catch (error) {
    throw invalidPattern(pattern, error);
  }
  return tasks;
}

/** A pattern fast-glob or its matcher refuses (too long, too many expansions, bad syntax). */
export function invalidPattern(pattern: string, error: unknown): ToolError {
  const detail = error instanceof Error ? error.message : String(error);
  const shown = pattern.length > 200 ? `${pattern.slice(0, 200)}… (${pattern.length} characters)` : pattern;
  return new ToolError(`Invalid glob pattern ${shown}: ${detail}`);
}

/** An absolute pattern is allowed only under the root; it is then searched from the root. */
function insideRoot(workspace: Workspace, pattern: string): { cwd: string; relative: string } {
  if (!pattern.startsWith(workspace.root + sep)) throw new PathEscapeError(pattern);
  return { cwd: workspace.root, relative: pattern.slice(workspace.root.length + 1) || "." };
}

async function baseFolder(workspace: Workspace, path: string): Promise<string> {
  const folder = await workspace.resolve(path);
  const stats = await stat(folder).catch(() => undefined);
  if (!stats) throw new ToolError(`Folder not found: ${path}`);
  if (!stats.isDirectory()) throw new ToolError(`${path} is not a folder`);
  return folder;
}

function countStars(segment: string): number {
  let stars = 0;
  for (const char of segment) if (char === "*") stars++;
  return stars;
}

/** An absolute alternative is refused unless under the root, even where fast-glob would match nothing with it. */
function outsideRoot(workspace: Workspace, expanded: string): boolean {
  return isAbsolute(expanded) && !expanded.startsWith(workspace.root + sep);
}

function hasParentSegment(pattern: string): boolean {
  return pattern.split("/").includes("..");
}
