/**
 * The links on the way from a program's path to its real file: a command found on `PATH` is
 * often one (`<prefix>/bin/bun` → `../lib/node_modules/bun/bin/bun.exe`, nvm's `bin/npx` →
 * `../lib/node_modules/npm/bin/npx-cli.js`), and the process executes it by that path, so the
 * view holds each link as a link beside the real file it leads to.
 */
import { lstatSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** A link in the view: at `path`, leading to `target` (as written). */
export interface ProgramLink {
  readonly path: string;
  readonly target: string;
}

/** Each link from `program` (absolute) to its real path, in order; none for a real file or a missing one. */
export function programLinks(program: string): ProgramLink[] {
  const links: ProgramLink[] = [];
  // Its folder's own links resolved: the view holds real folders.
  let at = realFolder(program);
  for (let hops = 0; at !== undefined && hops < 40; hops++) {
    const stats = lstatSync(at, { throwIfNoEntry: false });
    if (stats === undefined || !stats.isSymbolicLink()) break;
    const target = readlinkSync(at);
    links.push({ path: at, target });
    at = realFolder(resolve(dirname(at), target));
  }
  return links;
}

function realFolder(path: string): string | undefined {
  try {
    return join(realpathSync(dirname(path)), basename(path));
  } catch {
    return undefined;
  }
}
