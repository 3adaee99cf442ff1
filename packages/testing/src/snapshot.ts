/**
 * Folder snapshots, to see which files plugin code created, changed or removed. A file is
 * its size and modification time; a folder only that it exists (its time changes with its
 * contents).
 */
import { lstat, readdir } from "node:fs/promises";
import { join, relative } from "node:path";

/** Every path under a folder (relative, `/`-separated) and its fingerprint. */
export type Snapshot = ReadonlyMap<string, string>;

/** Takes a snapshot of everything under `root`. */
export async function snapshot(root: string): Promise<Snapshot> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  const found = new Map<string, string>();
  for (const entry of entries) {
    const path = join(entry.parentPath, entry.name);
    const info = await lstat(path).catch(() => undefined);
    if (!info) continue;
    const kind = info.isDirectory() ? "folder" : info.isSymbolicLink() ? "link" : "file";
    found.set(relative(root, path), kind === "folder" ? kind : `${kind}:${info.size}:${info.mtimeMs}`);
  }
  return found;
}

/** What changed between two snapshots: `created PATH`, `changed PATH`, `removed PATH`, sorted by path. */
export function changes(before: Snapshot, after: Snapshot): { readonly path: string; readonly change: string }[] {
  const found: { path: string; change: string }[] = [];
  for (const [path, fingerprint] of after) {
    const previous = before.get(path);
    if (previous === undefined) found.push({ path, change: "created" });
    else if (previous !== fingerprint) found.push({ path, change: "changed" });
  }
  for (const path of before.keys()) if (!after.has(path)) found.push({ path, change: "removed" });
  return found.sort((a, b) => a.path.localeCompare(b.path));
}
