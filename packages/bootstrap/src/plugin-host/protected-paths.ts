/**
 * The paths inside the workspace that no confined process may write, whatever its grants:
 * the files the app and git read later and trust (the config, the `.env` beside it, the
 * lock file, the audit log, the listing cache, `.git/config` and `.git/hooks/`, and
 * `.plugboard/` but its `results/`), and the config's own `protect` additions.
 */
import { closeSync, lstatSync, mkdirSync, openSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { ProtectedPath } from "@plugboard/sandbox";
import { exists } from "@plugboard/sandbox/view";
import type { AppConfig } from "../config.ts";

const ALWAYS = "always protected";

/**
 * The protected paths of `config`'s app in `workspace` (real paths; those that do not
 * exist are left out, except `.git/hooks/` in a repository, made here as git would).
 */
export function protectedPaths(config: Pick<AppConfig, "configPath" | "audit" | "protect">, workspace: string, cacheFolder: string | undefined): ProtectedPath[] {
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

/** `.git/config` and `.git/hooks/` of a repository, or a `.git` file (a worktree's) itself. */
function gitPaths(workspace: string): ProtectedPath[] {
  const git = join(workspace, ".git");
  if (!exists(git)) return [];
  const stats = lstatSync(git);
  if (!stats.isDirectory()) return [{ path: git, rule: `.git (a link to a repository elsewhere, ${ALWAYS})` }];
  mkdirSync(join(git, "hooks"), { recursive: true });
  return [
    { path: join(git, "config"), rule: `.git/config (${ALWAYS})` },
    { path: join(git, "hooks"), rule: `.git/hooks/ (${ALWAYS})` },
  ];
}

function touch(path: string): void {
  try {
    closeSync(openSync(path, "a", 0o600));
  } catch {
    // openAuditLog says what is wrong.
  }
}

