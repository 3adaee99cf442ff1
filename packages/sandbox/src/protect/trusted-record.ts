/**
 * What the person trusts, or the app wrote itself, as it was then: in the record's `trusted/`,
 * one file per path (named by a hash of it) holding its last trusted state, replaced whole by a
 * rename. A trust replaces what was trusted at its path before, so processes trusting files at
 * once lose none of each other's, and no lock is held.
 */
import { linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ownFile } from "./span-record.ts";

/**
 * One thing on the way to a trusted file, as it was when trusted: a link, or the file itself,
 * at its real location, by its inode and its last status change (`ctime`), which every write,
 * rename, link and `chmod` moves and no one can set back.
 */
export interface Trusted {
  readonly path: string;
  readonly ino: number;
  readonly ctime: number;
}

/** Paths kept trusted (the longest untouched are dropped first: that only errs toward refusing). */
const KEPT = 500;

/** What was last trusted at `path`, if anything. */
export function trustedAt(folder: string, path: string): Trusted | undefined {
  try {
    const entry = JSON.parse(readFileSync(fileOf(folder, path), "utf8")) as Trusted;
    return entry.path === path ? entry : undefined;
  } catch {
    return undefined;
  }
}

/** Records each entry as trusted at its path, replacing what was. Throws when it cannot. */
export function recordTrusted(folder: string, entries: readonly Trusted[]): void {
  for (const entry of entries) renameSync(written(folder, entry), fileOf(folder, entry.path));
  const names = readdirSync(join(folder, "trusted"));
  if (names.length <= KEPT) return;
  const oldest = names.map((name) => ({ name, at: statSync(join(folder, "trusted", name), { throwIfNoEntry: false })?.mtimeMs ?? 0 })).sort((a, b) => a.at - b.at);
  for (const { name } of oldest.slice(0, names.length - KEPT)) rmSync(join(folder, "trusted", name), { force: true });
}

/** Records an entry of another version's record, unless its path has one already (which is newer). */
export function recordOldTrusted(folder: string, entry: Trusted): void {
  const temporary = written(folder, entry);
  try {
    linkSync(temporary, fileOf(folder, entry.path));
  } catch {
    // Trusted already since.
  } finally {
    rmSync(temporary, { force: true });
  }
}

function written(folder: string, entry: Trusted): string {
  mkdirSync(join(folder, "trusted"), { recursive: true, mode: 0o700 });
  const temporary = ownFile(folder, "tmp");
  writeFileSync(temporary, `${JSON.stringify({ path: entry.path, ino: entry.ino, ctime: entry.ctime })}\n`, { mode: 0o600 });
  return temporary;
}

function fileOf(folder: string, path: string): string {
  return join(folder, "trusted", new Bun.CryptoHasher("sha256").update(path).digest("hex"));
}
