/**
 * What in a repository's metadata would run a program on the person's next git command
 * there: a hook that is not one of git's `.sample` files, and a config key whose value git
 * runs (`core.fsmonitor`, `core.hooksPath`, a filter's `clean`, an alias starting with `!`,
 * any `*.cmd`, …) or that makes git read another file as config (`include.path`). Said to
 * the person when a call leaves such a repository behind.
 */
import { readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { readRegularText } from "@plugboard/core/internal";

/** Config keys (lowercase; `*` one name or subsection) whose value git runs, or reads as more config. */
const RUNS = [
  /^core\.(?:fsmonitor|hookspath|sshcommand|editor|pager|askpass|gitproxy)$/,
  /^sequence\.editor$/,
  /^diff\.external$/,
  /^(?:diff|filter|merge|difftool|mergetool|credential|gpg|remote|uploadpack|pager|interactive)\..*\.(?:command|textconv|clean|smudge|process|driver|cmd|helper|program|uploadpack|receivepack|packobjectshook|difffilter)$/,
  /^(?:credential\.helper|gpg\.program|uploadpack\.packobjectshook|interactive\.difffilter)$/,
  /\.cmd$/,
  /^(?:include|includeif\..*)\.path$/,
];

/** What runs code in the git folder `git` (or the one a `.git` file points at): hooks, then config keys. */
export function codeIn(git: string, isFolder: boolean): string[] {
  const folder = isFolder ? git : pointedAt(git);
  if (folder === undefined) return [];
  const common = commonFolder(folder);
  const hooks = listing(join(common, "hooks")).filter((name) => !name.endsWith(".sample"));
  const keys = [join(common, "config"), join(folder, "config.worktree")].flatMap(runningKeys);
  return [...hooks.map((name) => `hook ${name}`), ...new Set(keys)];
}

/** The keys of the config file at `path` that run code, each as `key` (once, in order). */
export function runningKeys(path: string): string[] {
  let text: string;
  try {
    text = readRegularText(path);
  } catch {
    return [];
  }
  const keys: string[] = [];
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    const header = /^\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header !== null) {
      // Section names are case-insensitive, a subsection's is not (`[remote "Origin"]`); `[a.b]` is the old spelling of a subsection.
      section = header[2] === undefined ? (header[1] ?? "").toLowerCase() : `${(header[1] ?? "").toLowerCase()}.${header[2]}`;
      continue;
    }
    const key = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=|$)/.exec(line)?.[1];
    if (key === undefined || section === "") continue;
    const name = `${section}.${key.toLowerCase()}`;
    if (RUNS.some((pattern) => pattern.test(name.toLowerCase())) && !keys.includes(name)) keys.push(name);
  }
  return keys;
}

/** The git folder a `.git` file names (`gitdir: …`), or undefined. */
export function pointedAt(file: string): string | undefined {
  try {
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(readRegularText(file))?.[1];
    return named === undefined ? undefined : resolve(dirname(file), named);
  } catch {
    return undefined;
  }
}

/** Where a git folder's config and hooks are: the folder its `commondir` names, else itself. */
export function commonFolder(folder: string): string {
  try {
    const named = readRegularText(join(folder, "commondir")).trim();
    return named === "" ? folder : resolve(folder, named);
  } catch {
    return folder;
  }
}

function listing(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}
