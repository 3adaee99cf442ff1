/**
 * The tools each plugin host listed, kept between runs so that an app whose plugins did not
 * change mounts their tools without starting a host: the host then starts on the first call
 * (`plugboard tools` starts none). An entry is found by a key over everything the listing
 * comes from; any change to it is a miss, and the host is started and listed afresh.
 *
 * The key covers: this Bun, this package's version and the listing's format; each plugin's folder (every file outside
 * `node_modules`: path, size, modification and change time, inode) and the `package.json`
 * of each dependency it declares; their manifests, options and grants (the paths granted too); the workspace (their
 * `tools()` receives it); and the sandbox mechanism. A plugin's `tools()` must depend on
 * nothing else (docs/plugins.md says so).
 *
 * Entries live in `$XDG_CACHE_HOME/plugboard/hosts` (else `~/.cache/plugboard/hosts`), one
 * JSON file each, written whole or not at all. An entry that cannot be read or written is a
 * miss, never an error: the cache only spares time.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { readTextBounded } from "@plugboard/core/internal";
import { CONTRACT_VERSION, type Logger } from "@plugboard/core";
import type { ResolvedPlugin } from "@plugboard/loader/resolve-plugin";
import { cacheFolder } from "@plugboard/sandbox/granted-paths";
import packageJson from "../package.json" with { type: "json" };
import { type HostListing, isHostListing } from "./protocol.ts";

/** Bumped when an entry's meaning changes (the host protocol's listing, the schemas' encoding). */
const FORMAT = 2;
/** A plugin folder with more files than this is not fingerprinted: its host is always started. */
const MAX_FILES = 5_000;
/** Entries kept when the folder is pruned after a write (the most recently written ones). */
const KEEP_ENTRIES = 200;

/** What the key is computed from, besides the plugin itself. */
export interface ListingContext {
  /** The workspace root. */
  readonly workspace: string;
  /** The sandbox mechanism's description (`Landlock ABI 7 + …`). */
  readonly mechanism: string;
}

/** The cache folder for `env`, or undefined when there is no home to keep it in. */
export function listingCacheFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const folder = cacheFolder(env);
  return folder === undefined ? undefined : join(folder, "hosts");
}

/** One host's place in the cache. */
export class ListingCache {
  private constructor(
    readonly file: string,
    readonly folder: string,
    /** Each plugin's name and the tool names its manifest lists, in order: a listing with others is not used. */
    private readonly expected: string,
    private readonly logger: Logger,
  ) {}

  /** The entry of the host of `group` in `folder`, or undefined when a plugin cannot be fingerprinted. */
  static of(folder: string, group: readonly ResolvedPlugin[], context: ListingContext, logger: Logger): ListingCache | undefined {
    const hasher = new Bun.CryptoHasher("sha256");
    const part = (value: unknown) => hasher.update(`${JSON.stringify(value)}\n`);
    part({ FORMAT, bun: Bun.version, hosts: packageJson.version, contract: CONTRACT_VERSION });
    part([context.workspace, context.mechanism]);
    for (const resolved of group) {
      const files = fingerprint(resolved.directory);
      if (files === undefined) return undefined;
      part([resolved.directory, resolved.entryPath, resolved.manifest, resolved.entry.options, resolved.entry.permissions, resolved.entry.read, resolved.entry.write]);
      part(files);
      part(dependencies(resolved.directory));
    }
    const expected = namesOf(group.map(({ manifest }) => ({ name: manifest.name, tools: manifest.tools })));
    return new ListingCache(join(folder, `${hasher.digest("hex")}.json`), folder, expected, logger);
  }

  /**
   * The listing kept for this key, or undefined: none, unreadable, or naming other plugins or
   * tools than the manifests (the host would refuse such a plugin; a changed or forged entry is a miss).
   */
  read(): HostListing | undefined {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(this.file, "utf8"));
    } catch {
      return undefined;
    }
    return isHostListing(parsed) && namesOf(parsed.plugins) === this.expected ? parsed : undefined;
  }

  /** Keeps `listing` for this key; a failure is only logged. */
  write(listing: HostListing): void {
    const staging = `${this.file}.${process.pid}.tmp`;
    let staged = false;
    try {
      mkdirSync(this.folder, { recursive: true, mode: 0o700 });
      writeFileSync(staging, JSON.stringify(listing), { mode: 0o600 });
      staged = true;
      renameSync(staging, this.file);
      staged = false;
      prune(this.folder);
    } catch (error) {
      if (staged) rmSync(staging, { force: true });
      this.logger.debug(`tool listing not cached in ${this.folder}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Every file of the plugin's folder outside `node_modules` and `.git`, stamped; undefined past `MAX_FILES`. */
function fingerprint(directory: string): string[] | undefined {
  const stamps: string[] = [];
  const folders = [directory];
  for (let folder = folders.pop(); folder !== undefined; folder = folders.pop()) {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules" && entry.name !== ".git") folders.push(path);
        continue;
      }
      if (stamps.length === MAX_FILES) return undefined;
      stamps.push(`${relative(directory, path)} ${stamp(path)}`);
    }
  }
  return stamps.sort();
}

/** The `package.json` stamp of each dependency the plugin declares, as resolved from its folder. */
function dependencies(directory: string): string[] {
  let declared: Record<string, unknown> = {};
  try {
    declared = (JSON.parse(readTextBounded(join(directory, "package.json"))) as { dependencies?: Record<string, unknown> }).dependencies ?? {};
  } catch {
    // A path plugin without package.json declares nothing.
  }
  return Object.keys(declared)
    .sort()
    .map((name) => {
      try {
        const found = Bun.resolveSync(`${name}/package.json`, directory);
        return `${name} ${found} ${stamp(found)}`;
      } catch {
        return `${name} unresolved`;
      }
    });
}

/** What changes when the file changes: its size, times and inode (a symlink's target's). */
export function stamp(path: string): string {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats === undefined ? "missing" : `${stats.size} ${stats.mtimeMs} ${stats.ctimeMs} ${stats.ino}`;
}

/** The plugins' names and their tools' names, as one text to compare. */
function namesOf(plugins: readonly { readonly name: string; readonly tools: readonly { readonly name: string }[] }[]): string {
  return JSON.stringify(plugins.map(({ name, tools }) => [name, tools.map((tool) => tool.name)]));
}


/**
 * Past `KEEP_ENTRIES * 2` entries, removes all but the `KEEP_ENTRIES` written last; and the one
 * file of closures an earlier version kept here, which `closures/` has replaced.
 */
function prune(folder: string): void {
  rmSync(join(folder, "closures.json"), { force: true });
  // Only listing entries: the folder also keeps the hosts' programs (program.ts) and the code's closures (closures/).
  const names = readdirSync(folder).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
  if (names.length <= KEEP_ENTRIES * 2) return;
  const byAge = names
    .map((name) => ({ name, written: statSync(join(folder, name), { throwIfNoEntry: false })?.mtimeMs ?? 0 }))
    .sort((a, b) => b.written - a.written);
  for (const { name } of byAge.slice(KEEP_ENTRIES)) rmSync(join(folder, name), { force: true });
}
