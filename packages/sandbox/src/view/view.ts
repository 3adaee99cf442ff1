/**
 * The file system a confined process sees, as data: built by the app (which may read
 * everything) and applied by the confining step inside the process's own mount namespace
 * (see apply-view.ts). Every path is a real path, mounted at the same place it has outside,
 * so the paths a plugin prints mean the same to the person reading them.
 */
import { lstatSync } from "node:fs";

/** One entry of a view, applied in order. */
export type ViewMount =
  /** The real `source` (default: `path`), file or folder, at `path`; read-only unless `writable`. */
  | { readonly kind: "bind"; readonly path: string; readonly source?: string; readonly writable: boolean }
  /** A new, empty, private memory file system at `path`. */
  | { readonly kind: "tmpfs"; readonly path: string; readonly writable: boolean; readonly mode: number }
  /** The process's own `/proc` (its PID namespace's). */
  | { readonly kind: "proc"; readonly path: string }
  /** A symbolic link at `path` to `target`. */
  | { readonly kind: "symlink"; readonly path: string; readonly target: string }
  /**
   * An existing path inside a writable bind, made read-only (`writable: false`: a
   * protected path) or only made a mount point of its own (`writable: true`: a folder that
   * holds protected paths, which then cannot be renamed or removed to get round them).
   */
  | { readonly kind: "protect"; readonly path: string; readonly writable: boolean; readonly rule: string };

/** The whole view: its mounts, in order, and the folder the process starts in. */
export interface View {
  readonly mounts: readonly ViewMount[];
  readonly cwd: string;
}

/** Whether `path` exists, as itself (a link counts, wherever it leads); false on any error, ENOTDIR included. */
export function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether the absolute, normalised `path` is `folder` or lies beneath it. */
export function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith("/") ? folder : `${folder}/`);
}

/** The number of components in `path`: parents are mounted before their children. */
export function depth(path: string): number {
  return path === "/" ? 0 : path.split("/").length - 1;
}

/** Whether `path` (absolute, real) is in `view`: the deepest entry holding it is a bind of the real file system at its own place (not a server's cache folder mounted as its HOME). */
export function sees(view: View, path: string): boolean {
  let deepest: ViewMount | undefined;
  for (const entry of view.mounts) {
    if (entry.kind === "protect" || !isWithin(path, entry.path)) continue;
    if (deepest === undefined || depth(entry.path) >= depth(deepest.path)) deepest = entry;
  }
  return deepest?.kind === "bind" && deepest.source === undefined;
}
