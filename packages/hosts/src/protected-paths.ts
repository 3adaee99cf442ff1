/**
 * The paths inside the workspace that no confined process may write, whatever its grants:
 * the files the app and git read later and trust (the config, the `.env` beside it, the
 * lock file, the audit log, the listing cache, `.git/config` and `.git/hooks/`, and
 * `.plugboard/` but its `results/`, the hooks' programs with their folders, the files their
 * arguments name and what they import, which run unconfined), and the config's own
 * `protect` additions.
 */
import { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import type { ProtectedPath } from "@plugboard/sandbox";
import { exists } from "@plugboard/sandbox/view";
import type { AppConfig } from "@plugboard/config";
import { hookFiles } from "./hook-files.ts";

const ALWAYS = "always protected";

/**
 * The protected paths of `config`'s app in `workspace` (real paths; those that do not
 * exist are left out, except `.git/hooks/` in a repository, made here as git would).
 */
export function protectedPaths(
  config: Pick<AppConfig, "configPath" | "audit" | "protect"> & Partial<Pick<AppConfig, "hooks">>,
  workspace: string,
  cacheFolder: string | undefined,
): ProtectedPath[] {
  const folder = dirname(config.configPath);
  // The audit log exists before any host starts, so that none can create (or forge) it; opening it reports a failure.
  if (config.audit !== undefined) touch(config.audit);
  const paths: ProtectedPath[] = [
    { path: config.configPath, rule: `the config file (${ALWAYS})` },
    { path: join(folder, ".env"), rule: `the .env beside the config (${ALWAYS})` },
    { path: join(folder, "plugboard.lock.json"), rule: `the lock file beside the config (${ALWAYS})` },
    ...(config.audit === undefined ? [] : [{ path: config.audit, rule: `the audit log ("audit" in the config, ${ALWAYS})` }]),
    ...(cacheFolder === undefined ? [] : [{ path: cacheFolder, rule: `the listing cache (${ALWAYS})` }]),
    ...gitPaths(workspace),
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

/** `path` with its folder's links resolved (the entry itself, a link or not, stays). */
function realLocation(path: string): string {
  return join(realpathSync(dirname(path)), basename(path));
}

/**
 * What git reads and runs as the user: `.git/config` and `.git/hooks/` of a repository (and
 * of each submodule it keeps in `.git/modules/`), the folder `core.hooksPath` names when it
 * lies in the workspace, or a `.git` file (a worktree's) itself.
 */
function gitPaths(workspace: string): ProtectedPath[] {
  const git = join(workspace, ".git");
  if (!exists(git)) return [];
  if (!lstatSync(git).isDirectory()) return [{ path: git, rule: `.git (a link to a repository elsewhere, ${ALWAYS})` }];
  try {
    mkdirSync(join(git, "hooks"), { recursive: true });
  } catch {
    // A repository this user may not change: no plugin may either.
  }
  return [...repositoryPaths(git, ".git"), ...hooksPath(git, workspace)];
}

/** A git folder's config and hooks, and its submodules' (whose names may hold `/`, so a few levels deep). */
function repositoryPaths(folder: string, shown: string, depth = 0): ProtectedPath[] {
  const paths: ProtectedPath[] = [
    { path: join(folder, "config"), rule: `${shown}/config (${ALWAYS})` },
    { path: join(folder, "hooks"), rule: `${shown}/hooks/ (${ALWAYS})` },
  ];
  const visit = (modules: string, shownModules: string, level: number) => {
    if (level > 4) return;
    for (const name of folderNames(modules)) {
      const inner = join(modules, name);
      if (exists(join(inner, "config"))) paths.push(...repositoryPaths(inner, `${shownModules}/${name}`, depth + 1));
      else visit(inner, `${shownModules}/${name}`, level + 1);
    }
  };
  if (depth < 4) visit(join(folder, "modules"), `${shown}/modules`, 0);
  return paths;
}

/** The folder `core.hooksPath` in `.git/config` names, when it lies in the workspace (`.githooks`, husky's `.husky/_`). */
function hooksPath(git: string, workspace: string): ProtectedPath[] {
  let text: string;
  try {
    text = readFileSync(join(git, "config"), "utf8");
  } catch {
    return [];
  }
  const named = /^\s*hookspath\s*=\s*"?([^"\n]+?)"?\s*$/im.exec(text)?.[1];
  if (named === undefined) return [];
  const path = resolve(workspace, named.replace(/^~(?=\/)/, homedir()));
  return [{ path, rule: `the hooks folder core.hooksPath names (${ALWAYS})` }];
}

function folderNames(folder: string): string[] {
  try {
    return readdirSync(folder, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  } catch {
    return [];
  }
}

function touch(path: string): void {
  try {
    closeSync(openSync(path, "a", 0o600));
  } catch {
    // openAuditLog says what is wrong.
  }
}

