/**
 * What an install put in a project's `node_modules`: the packages a set of names needs, each
 * found as Node finds it (the nearest `node_modules/NAME` from the package that needs it, real
 * paths, so hoisted and isolated layouts alike), and the apparent size of their files.
 */
import { lstat, readdir, readFile, realpath, stat } from "node:fs/promises";
import { dirname, join } from "node:path";

/** One installed package: its files' apparent size, its own `node_modules` not included. */
export interface InstalledPackage {
  readonly name: string;
  readonly version: string;
  /** Its real path. */
  readonly folder: string;
  readonly bytes: number;
}

/**
 * The packages `roots` need from `project`: each root, then every dependency, peer and optional
 * dependency of each package found, once per real folder. Names in `leftOut` are not followed
 * wherever they appear (nor what only they bring); nor is a name no `node_modules` holds (an
 * optional dependency for another platform).
 */
export async function installedClosure(project: string, roots: readonly string[], leftOut: readonly string[] = []): Promise<InstalledPackage[]> {
  const found = new Map<string, InstalledPackage>();
  const queue = roots.map((name) => ({ name, from: project }));
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    if (leftOut.includes(next.name)) continue;
    const folder = await findPackage(next.name, next.from);
    if (folder === undefined || found.has(folder)) continue;
    const json = JSON.parse(await readFile(join(folder, "package.json"), "utf8")) as Record<string, unknown>;
    found.set(folder, { name: next.name, version: String(json.version), folder, bytes: await apparentSize(folder, true) });
    const needs = [json.dependencies, json.peerDependencies, json.optionalDependencies].flatMap((deps) => Object.keys(record(deps)));
    for (const name of needs) queue.push({ name, from: folder });
  }
  return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** The apparent size (bytes) of every file under `folder`, not following links; without its top-level `node_modules` when `ownOnly`. */
export async function apparentSize(folder: string, ownOnly = false): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(folder, { withFileTypes: true })) {
    if (ownOnly && entry.name === "node_modules") continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) bytes += await apparentSize(path);
    else if (entry.isFile()) bytes += (await lstat(path)).size;
  }
  return bytes;
}

/** The real folder of `name` in the nearest `node_modules` at or above `from`. */
async function findPackage(name: string, from: string): Promise<string | undefined> {
  for (let folder = from; ; folder = dirname(folder)) {
    const candidate = join(folder, "node_modules", name);
    if ((await stat(join(candidate, "package.json")).catch(() => undefined))?.isFile()) return realpath(candidate);
    if (dirname(folder) === folder) return undefined;
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
}
