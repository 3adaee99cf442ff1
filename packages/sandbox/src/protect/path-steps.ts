/**
 * What a path goes through to reach its file: each symbolic link met while resolving it (its
 * own and its folders', as the kernel follows them) and the file at the end, each at its real
 * location. A link is a file of its own, with its own inode and status change: pointing
 * `.env` elsewhere changes the link, not the file it now leads to.
 */
import { lstatSync, readlinkSync, type Stats } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";

/** A link on the way to a file, or the file itself. */
export interface PathStep {
  /** Its real location (the folders' links resolved; the entry itself as it is). */
  readonly path: string;
  readonly link: boolean;
  readonly ino: number;
  /** When its status last changed (written, renamed, linked, `chmod`ed), in ms. */
  readonly ctime: number;
  /** When it was made, in ms; 0 where the file system does not keep that. */
  readonly born: number;
}

/** The kernel's own limit on links followed in one lookup (`MAXSYMLINKS`). */
const MAX_LINKS = 40;

/**
 * The links on the way to the absolute `path`, then its file; undefined when it does not
 * exist (or its links go round).
 *
 * @example pathSteps("/ws/.env") // [{ path: "/ws/.env", link: true, … }, { path: "/ws/local.env", link: false, … }]
 */
export function pathSteps(path: string): PathStep[] | undefined {
  const steps: PathStep[] = [];
  const rest = names(path);
  let folder = "/";
  let links = 0;
  for (let name = rest.shift(); name !== undefined; name = rest.shift()) {
    if (name === "..") {
      folder = dirname(folder);
      continue;
    }
    const at = join(folder, name);
    const stats = lstatOf(at);
    if (stats === undefined) return undefined;
    if (stats.isSymbolicLink()) {
      links += 1;
      if (links > MAX_LINKS) return undefined;
      steps.push(stepOf(at, stats));
      const target = readlinkSync(at);
      if (isAbsolute(target)) folder = "/";
      rest.unshift(...names(target));
      continue;
    }
    if (rest.length === 0) return [...steps, stepOf(at, stats)];
    folder = at;
  }
  return undefined;
}

function names(path: string): string[] {
  return path.split("/").filter((name) => name !== "" && name !== ".");
}

function lstatOf(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function stepOf(path: string, stats: Stats): PathStep {
  return { path, link: stats.isSymbolicLink(), ino: stats.ino, ctime: stats.ctimeMs, born: stats.birthtimeMs };
}
