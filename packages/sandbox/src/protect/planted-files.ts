/**
 * Files the app reads at start (the config, the `.env` beside it, a config found in the
 * current folder, the lock file) that were created or changed while confined plugins could
 * write the workspace around them: a plugin may have planted them, and the sandbox cannot
 * keep every such name read-only (one that does not exist yet, one renamed over, a link
 * pointed elsewhere). The app records each span of time in which plugins could write a
 * workspace (in the user's own state folder, which no plugin can write), and refuses to read
 * a file, or one reached through a link, whose status changed (`ctime`) within one until the
 * person has looked at it and trusts it (`plugboard trust FILE`). Birth time is not enough: a
 * plugin keeps it by rewriting an old file and renaming it into place. What the app writes
 * itself (a rule saved, pins) it records as trusted, as written.
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { isWithin } from "../view/view.ts";
import { sandboxErrors } from "../messages.ts";
import { type PathStep, pathSteps } from "./path-steps.ts";
import { isAlive } from "@plugboard/core/process";

/** A span in which confined plugins could write `workspace`; `end` is null while the app runs. */
interface Span {
  readonly workspace: string;
  readonly start: number;
  readonly end: number | null;
  readonly pid: number;
}

/**
 * One thing on the way to a trusted file, as it was when trusted: a link, or the file itself,
 * at its real location, by its inode and its last status change (`ctime`), which every write,
 * rename, link and `chmod` moves and no one can set back.
 */
interface Trusted {
  readonly path: string;
  readonly ino: number;
  readonly ctime: number;
}

interface SpanRecord {
  readonly spans: readonly Span[];
  readonly trusted: readonly Trusted[];
}

/** Spans kept (the oldest are dropped first). */
const KEPT = 500;

/** `$XDG_STATE_HOME/plugboard/writable-spans.json`, else `~/.local/state/plugboard/…`, else none. */
export function plantedRecordFile(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const base = env.XDG_STATE_HOME || (env.HOME ? join(env.HOME, ".local", "state") : undefined);
  return base === undefined ? undefined : join(base, "plugboard", "writable-spans.json");
}

/**
 * Records that confined plugins may write `workspace` from now on; the returned function
 * ends the span (call it when the app closes). A span of an app that died without ending it
 * ends now, when it is found. Returns a no-op when there is no record file; throws nothing.
 */
export function beginWritableSpan(file: string | undefined, workspace: string, warn: (message: string) => void): () => void {
  if (file === undefined) return () => {};
  const now = fileClock(file) ?? Date.now();
  const start: Span = { workspace, start: now, end: null, pid: process.pid };
  const recorded = update(file, (record) => ({ ...record, spans: [...record.spans.map((span) => closedIfDead(span, now)), start].slice(-KEPT) }));
  if (!recorded) warn(`cannot record in ${file} that plugins may write ${workspace}: a .env or config a plugin creates there will not be told from yours`);
  return () =>
    update(file, (record) => ({
      ...record,
      spans: record.spans.map((span) => (span.pid === start.pid && span.start === start.start ? { ...span, end: fileClock(file) ?? Date.now() } : span)),
    }));
}

/**
 * Throws `PLANTED_FILE` when `path` exists and it, or a link on its way, was created or
 * changed (written, renamed, linked, `chmod`ed) within a span in which confined plugins could
 * write a workspace holding it, unless the person trusts it as it is or the app wrote it.
 */
export function refusePlanted(file: string | undefined, path: string, what: string): void {
  if (file === undefined) return;
  const found = suspect(read(file), path);
  if (found === undefined) return;
  const { step, span } = found;
  // Made within the span, where the file system keeps birth times; else only known to have changed.
  const created = step.born > 0 && span.start <= step.born;
  throw sandboxErrors.planted(path, what, { link: step.link ? step.path : undefined, created, at: created ? step.born : step.ctime, workspace: span.workspace });
}

/**
 * Whether `path` came to be within a span in which confined plugins could write a workspace
 * holding it (`plugboard check` marks such a repository or other tool's file): its birth time,
 * or its status change where the file system keeps no birth time.
 */
export function createdWhileWritable(file: string | undefined, path: string): boolean {
  if (file === undefined) return false;
  const last = pathSteps(path)?.at(-1);
  if (last === undefined) return false;
  const born = last.born > 0 ? last.born : last.ctime;
  const now = Date.now();
  return read(file).spans.some((span) => isWithin(path, span.workspace) && span.start <= born && born <= endOf(span, now));
}

/**
 * Trusts `path` as it is now, with each link on its way (a later change to any of them is
 * checked again). Throws `USAGE` when it does not exist.
 */
export function trustFile(file: string | undefined, path: string): void {
  const steps = pathSteps(path);
  if (steps === undefined) throw sandboxErrors.nothingToTrust(path);
  if (file !== undefined) trust(file, steps);
}

/**
 * Runs the app's own `write` of `path` (a rule saved, pins, a plugin added or removed) and
 * trusts the file as written, so that the next start does not take the app's write for a
 * plugin's. A file that was suspect before stays so: the app's edit does not vouch for the rest.
 *
 * @example await writeTrusted(plantedRecordFile(process.env), path, () => writeFile(path, text));
 */
export async function writeTrusted<T>(file: string | undefined, path: string, write: () => Promise<T>): Promise<T> {
  const clean = file !== undefined && suspect(read(file), path) === undefined;
  const written = await write();
  const steps = pathSteps(path);
  if (file !== undefined && clean && steps !== undefined) trust(file, steps);
  return written;
}

/** The first link, or the file, on the way to `path` whose status changed within a span of a workspace holding it and that is not trusted as it is. */
function suspect(record: SpanRecord, path: string): { step: PathStep; span: Span } | undefined {
  const now = Date.now();
  for (const step of pathSteps(path) ?? []) {
    if (record.trusted.some((entry) => entry.path === step.path && entry.ino === step.ino && entry.ctime === step.ctime)) continue;
    const span = record.spans.find((candidate) => isWithin(step.path, candidate.workspace) && candidate.start <= step.ctime && step.ctime <= endOf(candidate, now));
    if (span !== undefined) return { step, span };
  }
  return undefined;
}

function trust(file: string, steps: readonly PathStep[]): void {
  const entries: Trusted[] = steps.map(({ path, ino, ctime }) => ({ path, ino, ctime }));
  const kept = (entry: Trusted) => !steps.some((step) => step.path === entry.path);
  update(file, (record) => ({ ...record, trusted: [...record.trusted.filter(kept), ...entries].slice(-KEPT) }));
}

/**
 * The time on the clock files are stamped with (the kernel's coarse one, which may lag what
 * Date.now() reads by a tick): the stamp of a file made beside the record now, or undefined.
 * Spans are measured on it, so that a file made just before a span began never looks made
 * within it, nor one made just after it began outside it.
 */
function fileClock(file: string): number | undefined {
  const stamp = `${file}.${process.pid}.clock`;
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    closeSync(openSync(stamp, "w", 0o600));
  } catch {
    return undefined;
  }
  try {
    return statSync(stamp).mtimeMs;
  } finally {
    rmSync(stamp, { force: true });
  }
}

function endOf(span: Span, now: number): number {
  if (span.end !== null) return span.end;
  return isAlive(span.pid) ? Number.POSITIVE_INFINITY : now;
}

function closedIfDead(span: Span, now: number): Span {
  return span.end === null && !isAlive(span.pid) ? { ...span, end: now } : span;
}

/**
 * The record last read by this process, with the file's identity then (inode, size, times):
 * a start checks several files against the record (the config, its .env, the lock) and reads
 * it once. Every write replaces the file (a new inode), so a record another process wrote
 * since is read afresh.
 */
let lastRead: { readonly file: string; readonly identity: string; readonly record: SpanRecord } | undefined;

function read(file: string): SpanRecord {
  const stats = statSync(file, { throwIfNoEntry: false });
  const identity = stats === undefined ? undefined : `${stats.ino} ${stats.size} ${stats.mtimeMs} ${stats.ctimeMs}`;
  if (identity !== undefined && lastRead?.file === file && lastRead.identity === identity) return lastRead.record;
  let record: SpanRecord;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<SpanRecord>;
    // An entry without an inode trusted a file by its birth time, which a rename keeps: it vouches for nothing now.
    const trusted = Array.isArray(parsed.trusted) ? parsed.trusted.filter((entry) => typeof entry.ino === "number") : [];
    record = { spans: Array.isArray(parsed.spans) ? parsed.spans : [], trusted };
  } catch {
    return { spans: [], trusted: [] };
  }
  lastRead = identity === undefined ? undefined : { file, identity, record };
  return record;
}

/** Rewrites the record (0600, in a 0700 folder, by rename); false when it cannot be written. */
function update(file: string, change: (record: SpanRecord) => SpanRecord): boolean {
  try {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const temporary = `${file}.${process.pid}.tmp`;
    const fd = openSync(temporary, "w", 0o600);
    try {
      writeSync(fd, `${JSON.stringify(change(read(file)))}\n`);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
    return true;
  } catch {
    return false;
  }
}
