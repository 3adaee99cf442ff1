/**
 * The paths inside the workspace that no confined process may write, whatever its grants:
 * the files the app and git read later and trust (the config, the `.env` beside it, the
 * lock file, the audit log, the listing cache, the metadata of every repository to
 * `"protectDepth"` folder levels, the files other tools run on their own, and `.plugboard/`
 * but its `results/`, the hooks' programs with their folders, the files their arguments name
 * and what they import, which run unconfined), and the config's own `protect` additions.
 */
import { closeSync, openSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { readRegularText } from "@plugboard/core/internal";
import type { ProtectedPath } from "../view/build-view.ts";
import { exists } from "../view/view.ts";
import { type HookLists, hookFiles } from "./hook-files.ts";
import { DEFAULT_PROTECT_DEPTH, OTHER_TOOLS_FILES, OTHER_TOOLS_FOLDERS, type WorkspaceScan, WorkspaceWalker } from "./workspace-scan.ts";

const OTHER_TOOLS_NAMES = new Set<string>([...OTHER_TOOLS_FILES, ...OTHER_TOOLS_FOLDERS]);

const ALWAYS = "always protected";

/** What the protected paths are made from (an `AppConfig` has these). */
export interface ProtectionSettings {
  /** The config file: it, the `.env` and the lock file beside it are protected, and `protect` is relative to its folder. */
  readonly configPath: string;
  /** The audit log, when there is one. */
  readonly audit: string | undefined;
  /** The config's `"protect"` paths and glob patterns. */
  readonly protect: readonly string[];
  /** The hooks, whose programs run unconfined. @default none */
  readonly hooks?: HookLists;
  /** @default DEFAULT_PROTECT_DEPTH */
  readonly protectDepth?: number;
}

/**
 * The protected paths of `config`'s app in `workspace` (real paths; those that do not
 * exist are left out: nothing is created on the person's disk to be protected). `walker`
 * finds repositories and other tools' files (an app passes the one it keeps, which reads
 * again only the folders that changed).
 */
export function protectedPaths(
  config: ProtectionSettings,
  workspace: string,
  cacheFolder: string | undefined,
  walker: WorkspaceWalker = new WorkspaceWalker(workspace, config.protectDepth ?? DEFAULT_PROTECT_DEPTH),
): ProtectedPath[] {
  const folder = dirname(config.configPath);
  const scan = walker.scan();
  // The audit log exists before any host starts, so that none can create (or forge) it; opening it reports a failure.
  if (config.audit !== undefined) touch(config.audit);
  const paths: ProtectedPath[] = [
    { path: config.configPath, rule: `the config file (${ALWAYS})` },
    { path: join(folder, ".env"), rule: `the .env beside the config (${ALWAYS})` },
    { path: join(folder, "plugboard.lock.json"), rule: `the lock file beside the config (${ALWAYS})` },
    ...(config.audit === undefined ? [] : [{ path: config.audit, rule: `the audit log ("audit" in the config, ${ALWAYS})` }]),
    ...(cacheFolder === undefined ? [] : [{ path: cacheFolder, rule: `the listing cache (${ALWAYS})` }]),
    ...gitPaths(workspace, scan),
    ...otherToolsPaths(workspace, scan),
    { path: join(workspace, ".plugboard"), rule: `.plugboard/ (${ALWAYS}; its results/ folder stays writable)` },
    { path: join(workspace, ".plugboard", "results"), rule: "", writable: true },
    ...(config.hooks === undefined ? [] : hookFiles(config.hooks, workspace)),
  ];
  for (const pattern of config.protect) {
    const rule = `"protect": ${JSON.stringify(pattern)} in ${config.configPath}`;
    const glob = new Bun.Glob(pattern);
    const literal = resolve(folder, pattern);
    if (exists(literal)) paths.push({ path: literal, rule });
    for (const match of glob.scanSync({ cwd: folder, dot: true, onlyFiles: false, followSymlinks: false })) {
      paths.push({ path: resolve(folder, match), rule });
    }
  }
  return paths.filter(({ path }) => exists(path)).map((entry) => ({ ...entry, path: realLocation(entry.path) }));
}

/**
 * The protected paths of a `write` grant (a real path), as of a writable workspace: in a
 * folder, the metadata of every repository `walker` finds in it, the files other tools run on
 * their own and the hooks' files; a granted file that is one of those is protected itself.
 * (The config's own files, the audit log and the code are in `protectedPaths` and
 * `codeProtections` wherever they lie.)
 */
export function grantedRootPaths(root: string, walker: WorkspaceWalker | undefined, hooks: HookLists | undefined): ProtectedPath[] {
  if (walker === undefined) {
    const name = basename(root);
    const git = root.split("/").includes(".git");
    if (!git && !OTHER_TOOLS_NAMES.has(name)) return [];
    return [{ path: root, rule: git ? `${root} (a repository's metadata, ${ALWAYS})` : `${root} (other tools run it on their own, ${ALWAYS})` }];
  }
  const scan = walker.scan();
  const paths = [...gitPaths(root, scan), ...otherToolsPaths(root, scan), ...(hooks === undefined ? [] : hookFiles(hooks, root))];
  return paths.filter(({ path }) => exists(path)).map((entry) => ({ ...entry, path: realLocation(entry.path) }));
}

/** `path` with its folder's links resolved (the entry itself, a link or not, stays). */
function realLocation(path: string): string {
  return join(realpathSync(dirname(path)), basename(path));
}

/**
 * What git reads and runs as the user, in every repository found to `depth` folder levels
 * (workspace-scan.ts): each git folder's metadata that exists (config, hooks/, info/,
 * commondir, modules/ with its submodules' git folders, worktrees/), a `.git` file (a
 * worktree's or submodule's pointer) itself, and the folder `core.hooksPath` names when it
 * lies in the workspace. Nothing is created: an absent name is caught after the call that
 * makes it (leftovers.ts).
 */
function gitPaths(workspace: string, scan: WorkspaceScan): ProtectedPath[] {
  return scan.repositories.flatMap(({ path, folder, metadata }) => {
    const shown = relative(workspace, path) || ".git";
    if (!folder) return [{ path, rule: `${shown} (a link to a repository elsewhere, ${ALWAYS})` }];
    const own = metadata.map((name) => ({ path: join(path, name), rule: `${shown}/${name}${FOLDERS.has(name) ? "/" : ""} (${ALWAYS})` }));
    return [...own, ...hooksPath(path)];
  });
}

/** The metadata names that are folders, shown with a `/`. */
const FOLDERS = new Set(["hooks", "info", "modules", "worktrees"]);

/** Other tools' files and folders found (workspace-scan.ts), each protected as itself. */
function otherToolsPaths(workspace: string, scan: WorkspaceScan): ProtectedPath[] {
  return scan.otherTools.map((path) => {
    const folder = OTHER_TOOLS_FOLDERS.some((name) => path.endsWith(`/${name}`));
    return { path, rule: `${relative(workspace, path)}${folder ? "/" : ""} (other tools run it on their own, ${ALWAYS})` };
  });
}

/** The folder `core.hooksPath` in a git folder's config names, when it lies in the workspace (`.githooks`, husky's `.husky/_`). */
function hooksPath(git: string): ProtectedPath[] {
  let text: string;
  try {
    text = readRegularText(join(git, "config"));
  } catch {
    return [];
  }
  const named = /^\s*hookspath\s*=\s*"?([^"\n]+?)"?\s*$/im.exec(text)?.[1];
  if (named === undefined) return [];
  // Relative to the top of the worktree, where hooks run.
  const path = resolve(dirname(git), named.replace(/^~(?=\/)/, homedir()));
  return [{ path, rule: `the hooks folder core.hooksPath names (${ALWAYS})` }];
}

function touch(path: string): void {
  try {
    closeSync(openSync(path, "a", 0o600));
  } catch {
    // openAuditLog says what is wrong.
  }
}

