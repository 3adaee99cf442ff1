/**
 * Whether a plugin's folder has its dependencies installed: a plugin made by
 * `plugboard plugin new` (or freshly cloned) cannot load until `bun install` ran, and saying
 * so beats the import error it would otherwise give.
 */
import { access } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isRecord, readJson } from "./package-check.ts";

/**
 * The packages the plugin's code needs at run time (package.json's `dependencies` and
 * `peerDependencies`) that no `node_modules` in `directory` or any folder above it holds.
 */
export async function missingDependencies(directory: string): Promise<string[]> {
  const pkg = await readJson(join(directory, "package.json"));
  if (pkg === undefined) return [];
  const names = [...new Set([...Object.keys(record(pkg.dependencies)), ...Object.keys(record(pkg.peerDependencies))])];
  const missing: string[] = [];
  for (const name of names) if (!(await isInstalled(name, directory))) missing.push(name);
  return missing;
}

/** The fix for missing dependencies, then what to do again. */
export function installFix(directory: string, then = "check again"): string {
  return `Install the plugin's dependencies: run bun install in ${directory}, then ${then}.`;
}

async function isInstalled(name: string, from: string): Promise<boolean> {
  for (let folder = from; ; folder = dirname(folder)) {
    const found = await access(join(folder, "node_modules", name, "package.json")).then(
      () => true,
      () => false,
    );
    if (found) return true;
    if (dirname(folder) === folder) return false;
  }
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}
