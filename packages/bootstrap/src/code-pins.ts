/**
 * Pinned code: `plugboard.lock.json` pins the files of each loaded plugin's package (a
 * third-party package, a `path` plugin, a first-party package installed beside the config)
 * by content hash, and a plugin whose files differ from their pin is not loaded until the
 * person accepts it (`plugboard plugin accept NAME`, or the interactive prompt), the message
 * naming the changed files. A confined plugin that could write the workspace cannot so leave
 * code behind that the next start runs with another plugin's grants.
 *
 * The plugins Plugboard ships are pinned by the release itself: a package of the app's own
 * installation is the release, and a package of the same name found elsewhere (planted in
 * `node_modules` beside the config, over the shipped one) is loaded only while its files are
 * the shipped ones, so an upgrade never asks and a planted copy always does.
 */
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { findPackage, type PluginOrigin } from "@plugboard/loader/resolve-plugin";
import { isWithin } from "@plugboard/sandbox/view";
import { type CodeFingerprint, readLock, type ToolLock, writeLock } from "@plugboard/config/lock-file";

/** A plugin whose code is pinned: its package name and the real path of its folder. */
export interface PinnedCode {
  /** Its entry's index in the config's `plugins`. */
  readonly index: number;
  readonly name: string;
  readonly directory: string;
  /** The real folder of the package of that name the app ships, if it ships one. */
  readonly shipped?: string;
}

/** A plugin whose files differ from their pin (or from the shipped package of its name). */
export interface CodeChange {
  /** The plugin (its package name). */
  readonly source: string;
  /** Its entry's index in the config's `plugins`. */
  readonly index: number;
  readonly what: "code";
  /** Where its files are. */
  readonly directory: string;
  /** It is named like a package the app ships, and its files are not the shipped ones. */
  readonly shadows: boolean;
  /** Files whose content differs, files the pin lacks, files the pin has that are gone (paths in the package). */
  readonly changed: readonly string[];
  readonly added: readonly string[];
  readonly removed: readonly string[];
  /** The files as they are now. */
  readonly now: CodeFingerprint;
}

/** What to do with a changed plugin: accept it (by name), ask about it, or withhold it. */
export type CodeHandling = { readonly accept: string } | { readonly ask: (change: CodeChange) => Promise<boolean> } | { readonly withhold: true };

/** What pinning the code decided. */
export interface CodePinning {
  /** Plugins not loaded: their code differs from what the person accepted. */
  readonly withheld: readonly CodeChange[];
  /** Changed plugins accepted now (their files pinned as they are). */
  readonly accepted: readonly CodeChange[];
  /** The names of the plugins whose code the lock pins. */
  readonly sources: readonly string[];
}

/** Folders of a package that are not its own code: its installed dependencies (resolved and kept read-only as such), version control and turbo's task logs. */
const SKIPPED = new Set(["node_modules", ".git", ".turbo"]);

/**
 * Compares each plugin's files with its pin in the lock at `lockPath` (or, for a package
 * named like one the app ships, with the shipped files), pins plugins seen for the first
 * time, applies `handling`, writes the lock when anything was pinned (trusted as written in the
 * planted-file `record`, see `writeTrusted`), and returns what was decided. Nothing of any
 * plugin runs here.
 */
export async function pinCode(lockPath: string, plugins: readonly PinnedCode[], handling?: CodeHandling, record?: string): Promise<CodePinning> {
  // A package of the app's own installation is the release: nothing to compare.
  const compared = plugins.filter(({ directory, shipped }) => directory !== shipped);
  if (compared.length === 0) return { withheld: [], accepted: [], sources: [] };
  const lock = await readLock(lockPath);
  const code: Record<string, CodeFingerprint> = { ...lock.code };
  let dirty = false;
  const withheld: CodeChange[] = [];
  const accepted: CodeChange[] = [];
  const sources: string[] = [];
  for (const { index, name, directory, shipped } of compared) {
    const now = packageFiles(directory);
    const pinned = code[name];
    if (shipped !== undefined && sameFiles(now, packageFiles(shipped))) continue;
    sources.push(name);
    if (pinned === undefined && shipped === undefined) {
      // Trust on first use, as for tools: what is loaded the first time is what is pinned.
      code[name] = now;
      dirty = true;
      continue;
    }
    if (pinned !== undefined && sameFiles(now, pinned)) continue;
    const change = changeOf(index, name, directory, shipped === undefined ? pinned : (pinned ?? packageFiles(shipped)), now, shipped !== undefined);
    if (!(await accepts(handling, change))) {
      withheld.push(change);
      continue;
    }
    code[name] = now;
    accepted.push(change);
    dirty = true;
  }
  if (dirty) await writeLock(lockPath, { ...lock, code } satisfies ToolLock, record);
  return { withheld, accepted, sources };
}

async function accepts(handling: CodeHandling | undefined, change: CodeChange): Promise<boolean> {
  if (handling === undefined || "withhold" in handling) return false;
  return "accept" in handling ? handling.accept === change.source : handling.ask(change);
}

function changeOf(index: number, source: string, directory: string, before: CodeFingerprint | undefined, now: CodeFingerprint, shadows: boolean): CodeChange {
  const was = before ?? {};
  const changed = Object.keys(now).filter((file) => was[file] !== undefined && was[file] !== now[file]);
  const added = Object.keys(now).filter((file) => was[file] === undefined);
  const removed = Object.keys(was).filter((file) => now[file] === undefined);
  return { source, index, what: "code", directory, shadows, changed, added, removed, now };
}

function sameFiles(a: CodeFingerprint, b: CodeFingerprint): boolean {
  const names = Object.keys(a);
  return names.length === Object.keys(b).length && names.every((name) => a[name] === b[name]);
}

/**
 * The files of the package in `directory` (but its `node_modules` and `.git`), each by its
 * path in the package: `sha256:HEX` of a file's content, `link:TARGET` of a link. Content,
 * not times: a file rewritten with its old size and modification time is still told apart.
 */
export function packageFiles(directory: string): CodeFingerprint {
  const files: Record<string, string> = {};
  const visit = (folder: string, prefix: string) => {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      return;
    }
    for (const name of entries.sort()) {
      const path = join(folder, name);
      const shown = prefix === "" ? name : `${prefix}/${name}`;
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats === undefined) continue;
      if (stats.isSymbolicLink()) files[shown] = `link:${readlinkSync(path)}`;
      else if (stats.isDirectory()) {
        if (!SKIPPED.has(name)) visit(path, shown);
      } else if (stats.isFile()) files[shown] = `sha256:${new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex")}`;
    }
  };
  visit(directory, "");
  return files;
}

/**
 * The plugins whose code is pinned: every one but a package of the app's own installation (or a path to one),
 * each with the folder of the package of its name the app ships, when it ships one (an `@plugboard/` name: a
 * package planted beside the config over a shipped plugin is then compared with it). `workspace`
 * is where confined plugins may write (a real path).
 */
export async function pinnedCode(
  resolved: readonly { readonly origin: PluginOrigin; readonly directory: string; readonly manifest: { readonly name: string }; readonly where: { readonly index: number } }[],
  appFolder: string | undefined,
  workspace: string,
): Promise<PinnedCode[]> {
  return resolved.flatMap((plugin): PinnedCode[] => {
    if (plugin.origin === "app") return [];
    // Without an app's folder (buildApp used as a library), an @plugboard package installed outside the workspace is the release as installed.
    if (appFolder === undefined && plugin.manifest.name.startsWith("@plugboard/") && !isWithin(plugin.directory, workspace)) return [];
    // Only the project publishes to the @plugboard scope: another name in the app's node_modules is a dependency, not a plugin it ships.
    // Found as the loader finds the packages the app ships.
    const shipped = appFolder === undefined || !plugin.manifest.name.startsWith("@plugboard/") ? undefined : findPackage(plugin.manifest.name, appFolder);
    // A path entry naming the shipped package's own folder (a checkout's plugins/bash) is the release too.
    return shipped === plugin.directory ? [] : [{ index: plugin.where.index, name: plugin.manifest.name, directory: plugin.directory, ...(shipped === undefined ? {} : { shipped }) }];
  });
}


/** The line that says a plugin's code is not loaded, which files differ, and how to accept it. */
export function withheldCodeLine(change: CodeChange, lockPath: string): string {
  const files = [
    ...change.changed.map((file) => `${file} changed`),
    ...change.added.map((file) => `${file} added`),
    ...change.removed.map((file) => `${file} removed`),
  ];
  const shown = files.length > 8 ? [...files.slice(0, 8), `and ${files.length - 8} more`] : files;
  const which = change.shadows
    ? `${change.directory} is installed as ${change.source}, which plugboard ships, but its files are not the shipped ones`
    : `the code of ${change.source} (${change.directory}) differs from what ${lockPath} pins`;
  return `${which} (${shown.join(", ")}): it is not loaded. Look at the files; if you trust them: plugboard plugin accept ${change.source}`;
}
