/**
 * Paths a person grants a plugin or an MCP server besides the workspace (`"read"` and
 * `"write"` in its config entry): each is in the process's view at its own path, read-only or
 * writable, with Landlock's write rule for the writable ones; a writable folder holds the same
 * protected paths a writable workspace does. What may never be granted, to read or to write: the
 * app's own code and Plugboard's config, state and cache folders, whose files the app reads and
 * runs, and which hold its logins and conversations.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { isWithin } from "./view/view.ts";

/** The extra paths of an entry, absolute (`~` already expanded), as the config gives them. */
export interface PathGrants {
  /** Files and folders the process may read. @default none */
  readonly read?: readonly string[];
  /** Files and folders the process may read and write, but their protected paths. @default none */
  readonly write?: readonly string[];
  /**
   * Plugboard's own folders (`reservedFolders`), which no grant may lead into: the config was
   * checked against them at start, and each grant is checked again as a process starts, since a
   * path may have become a link into one since (made by a process granted the folder it lies in).
   * @default none checked
   */
  readonly reserved?: readonly ReservedFolder[];
}

/** `path` with a leading `~` (alone or `~/…`) made the home folder `home`; other paths as they are. */
export function expandHome(path: string, home: string = homedir()): string {
  if (path === "~") return home;
  return path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/**
 * The real paths of the grants that exist (a missing one is left out of the view: nothing is
 * created on the person's disk for it), each once. Throws when one now leads into a `reserved`
 * folder: the process is not started.
 */
export function existingGrants(paths: readonly string[] | undefined, reserved: readonly ReservedFolder[] = []): string[] {
  const found = new Set<string>();
  for (const path of paths ?? []) {
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      // Not there: not in the view.
      continue;
    }
    const into = reservedGrant([real], reserved);
    if (into !== undefined) {
      throw new Error(`the granted path ${path} now leads to ${real}, in ${into.folder.what} (${into.folder.path}), which no grant may give a confined process; point the grant elsewhere in the config`);
    }
    found.add(real);
  }
  return [...found];
}

/** A folder no `read` or `write` grant may touch, and what it is (as a message names it). */
export interface ReservedFolder {
  readonly path: string;
  readonly what: string;
}

/**
 * The folders Plugboard reads and runs from, which no grant may give a confined process: the app's
 * install (`appFolder`), its config folder (`$XDG_CONFIG_HOME/plugboard`, else
 * `~/.config/plugboard`: MCP logins), its state (`$XDG_STATE_HOME/plugboard`, else
 * `~/.local/state/plugboard`: the record of writable spans, conversations) and its cache
 * (`$XDG_CACHE_HOME/plugboard`, else `~/.cache/plugboard`: tool listings, servers' homes).
 */
export function reservedFolders(env: Readonly<Record<string, string | undefined>>, appFolder: string | undefined): ReservedFolder[] {
  const withHome = { ...env, HOME: env.HOME || homedir() };
  const config = plugboardFolder(withHome, "XDG_CONFIG_HOME", ".config");
  const state = stateFolder(withHome);
  const cache = cacheFolder(withHome);
  return [
    ...(appFolder === undefined ? [] : [{ path: appFolder, what: "the app's install" }]),
    ...(config === undefined ? [] : [{ path: config, what: "Plugboard's config folder" }]),
    ...(state === undefined ? [] : [{ path: state, what: "Plugboard's state folder" }]),
    ...(cache === undefined ? [] : [{ path: cache, what: "Plugboard's cache folder" }]),
  ];
}

/**
 * Plugboard's cache folder: `$XDG_CACHE_HOME/plugboard`, else `~/.cache/plugboard`; undefined
 * without either variable. It holds the tool listings and the MCP servers' homes.
 */
export function cacheFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return plugboardFolder(env, "XDG_CACHE_HOME", ".cache");
}

/**
 * Plugboard's state folder: `$XDG_STATE_HOME/plugboard`, else `~/.local/state/plugboard`;
 * undefined without either variable. It holds the record of writable spans and the kept conversations.
 */
export function stateFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  return plugboardFolder(env, "XDG_STATE_HOME", ".local/state");
}

/** `$VARIABLE/plugboard`, else `~/FALLBACK/plugboard` (XDG's base folders); undefined without either. */
function plugboardFolder(env: Readonly<Record<string, string | undefined>>, variable: string, fallback: string): string | undefined {
  const base = env[variable] || (env.HOME ? join(env.HOME, fallback) : undefined);
  return base === undefined ? undefined : join(base, "plugboard");
}

/** The first grant (`read` or `write`) that is, holds or lies in a reserved folder, with that folder; none when all are allowed. */
export function reservedGrant(grants: readonly string[], reserved: readonly ReservedFolder[]): { readonly grant: string; readonly folder: ReservedFolder } | undefined {
  for (const grant of grants) {
    const real = realOrSame(grant);
    for (const folder of reserved) {
      const target = realOrSame(folder.path);
      if (isWithin(real, target) || isWithin(target, real)) return { grant, folder };
    }
  }
  return undefined;
}

/** The real path of `path`, or of its nearest existing folder with the rest appended; `path` itself when none resolves. */
export function realOrSame(path: string): string {
  const rest: string[] = [];
  for (let at = path; ; ) {
    try {
      return join(realpathSync(at), ...rest.reverse());
    } catch {
      const parent = join(at, "..");
      if (parent === at) return path;
      rest.push(at.slice(parent === "/" ? 1 : parent.length + 1));
      at = parent;
    }
  }
}
