/**
 * Files the app reads at start (the `.env` beside the config, a config found in the current
 * folder) that did not exist while confined plugins could write the workspace around them,
 * and then appeared: a plugin may have planted them, and the sandbox cannot keep a name that
 * does not exist yet read-only. The app records each span of time in which plugins could
 * write a workspace (in the user's own state folder, which no plugin can write), and refuses
 * to read such a file created within one until the person has looked at it and trusts it
 * (`plugboard trust FILE`).
 */
import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { isWithin } from "@plugboard/sandbox/view";
import { PlugboardError } from "./errors.ts";

/** A span in which confined plugins could write `workspace`; `end` is null while the app runs. */
interface Span {
  readonly workspace: string;
  readonly start: number;
  readonly end: number | null;
  readonly pid: number;
}

/** A file the person trusts, as it was when they did (its birth time). */
interface Trusted {
  readonly path: string;
  readonly born: number;
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
 * Throws `PLANTED_FILE` when `path` exists and was created within a span in which confined
 * plugins could write a workspace holding it, unless the person trusts it as it is.
 */
export function refusePlanted(file: string | undefined, path: string, what: string): void {
  if (file === undefined) return;
  const born = birthOf(path);
  if (born === undefined) return;
  const record = read(file);
  if (record.trusted.some((entry) => entry.path === path && entry.born === born)) return;
  const now = Date.now();
  const span = record.spans.find((candidate) => isWithin(path, candidate.workspace) && candidate.start <= born && born <= endOf(candidate, now));
  if (span === undefined) return;
  throw new PlugboardError(
    "PLANTED_FILE",
    `${path} (${what}) was created at ${new Date(born).toISOString()}, while plugins could write ${span.workspace}, so a plugin may have written it; plugboard does not read it until you have looked at it.\n` +
      `Read it: if it is yours, run plugboard trust ${path}; if not, delete it.`,
  );
}

/**
 * Whether `path` came to be within a span in which confined plugins could write a workspace
 * holding it (`plugboard check` marks such a repository or other tool's file).
 */
export function createdWhileWritable(file: string | undefined, path: string): boolean {
  if (file === undefined) return false;
  const born = birthOf(path);
  if (born === undefined) return false;
  const now = Date.now();
  return read(file).spans.some((span) => isWithin(path, span.workspace) && span.start <= born && born <= endOf(span, now));
}

/** Trusts `path` as it is now (a later new file at that path is checked again). Throws `USAGE` when it does not exist. */
export function trustFile(file: string | undefined, path: string): void {
  const born = birthOf(path);
  if (born === undefined) throw new PlugboardError("USAGE", `${path} does not exist: there is nothing to trust.`);
  if (file === undefined) return;
  update(file, (record) => ({ ...record, trusted: [...record.trusted.filter((entry) => entry.path !== path), { path, born }].slice(-KEPT) }));
}

/** When a file came to be: its birth time where the file system keeps one, else its last status change. */
function birthOf(path: string): number | undefined {
  try {
    const stats = statSync(path);
    return stats.birthtimeMs > 0 ? stats.birthtimeMs : stats.ctimeMs;
  } catch {
    return undefined;
  }
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
  return alive(span.pid) ? Number.POSITIVE_INFINITY : now;
}

function closedIfDead(span: Span, now: number): Span {
  return span.end === null && !alive(span.pid) ? { ...span, end: now } : span;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function read(file: string): SpanRecord {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<SpanRecord>;
    return { spans: Array.isArray(parsed.spans) ? parsed.spans : [], trusted: Array.isArray(parsed.trusted) ? parsed.trusted : [] };
  } catch {
    return { spans: [], trusted: [] };
  }
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
