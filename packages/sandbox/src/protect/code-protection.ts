/**
 * The code that runs, kept read-only to every confined process wherever it lies in a
 * writable workspace: the app's own code (the checkout, when the app runs from one) and every
 * enabled plugin's package with the dependencies it resolves and the configuration files Bun
 * reads on the way up. A plugin that could rewrite one of them would run its code, at the
 * next start, as the app or with another plugin's grants.
 */
import type { ProtectedPath } from "../view/build-view.ts";
import { codeClosure } from "../view/package-closure.ts";
import { isWithin } from "../view/view.ts";

/** How a refusal names the rule. */
const RULE = "the code of the app or of an enabled plugin (always protected)";

/**
 * The paths of the code in `folders` (the app's folder and the enabled plugins' folders,
 * real paths) and of its closure that lie inside `workspace`, each protected by the code
 * rule. A folder that is the workspace itself cannot be protected whole (the workspace would
 * be read-only): a plugin developed in its own workspace is left to its pin in the lock.
 */
export function codeProtections(folders: readonly string[], workspace: string, closureCache?: string): ProtectedPath[] {
  const inside = (path: string) => path !== workspace && isWithin(path, workspace);
  if (!folders.some((folder) => isWithin(folder, workspace) || isWithin(workspace, folder))) return [];
  const closure = codeClosure(folders, [workspace], closureCache);
  const paths = [...closure.folders, ...closure.files, ...closure.links.map(({ path }) => path)].filter(inside);
  return [...new Set(paths)].sort().map((path) => ({ path, rule: RULE }));
}
