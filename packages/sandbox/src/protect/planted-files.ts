/**
 * Files the app reads at start (the config, the `.env` beside it, a config found in the
 * current folder, the lock file) that were created or changed while confined plugins could
 * write the workspace around them: a plugin may have planted them, and the sandbox cannot
 * keep every such name read-only (one that does not exist yet, one renamed over, a link
 * pointed elsewhere). The app records each span of time in which plugins could write a
 * workspace (in the user's own state folder, which no plugin can write: `span-record.ts`), and refuses to read
 * a file, or one reached through a link, whose status changed (`ctime`) within one until the
 * person has looked at it and trusts it (`plugboard trust FILE`). Birth time is not enough: a
 * plugin keeps it by rewriting an old file and renaming it into place. What the app writes
 * itself (a rule saved, pins) it records as trusted, as written.
 */
import { closeSync, mkdirSync, openSync, rmSync, type Stats, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { stateFolder } from "../granted-paths.ts";
import { isWithin } from "../view/view.ts";
import { sandboxErrors } from "../messages.ts";
import { moveOldRecord, readOldRecord } from "./old-record.ts";
import { type PathStep, pathSteps } from "./path-steps.ts";
import { listSpans, ownFile, recordSpan, type Span } from "./span-record.ts";
import { recordTrusted, trustedAt } from "./trusted-record.ts";
import { isAlive } from "@plugboard/core/process";

/**
 * `$XDG_STATE_HOME/plugboard/writable-spans/` (a folder), else `~/.local/state/plugboard/…`, else none.
 * Throws `STATE_FOLDER` when a file stands where one of its folders must be: the record of
 * planted files cannot be kept there, and a start without it would believe what plugins left.
 */
export function plantedRecordFile(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const state = stateFolder(env);
  if (state === undefined) return undefined;
  const file = join(state, "writable-spans");
  // The nearest of its folders that is there must be a folder (a file on the way answers ENOTDIR further down).
  for (let at = file; dirname(at) !== at; at = dirname(at)) {
    const stats = statOrNot(at);
    if (stats === undefined) continue;
    if (!stats.isDirectory()) throw sandboxErrors.stateFolder(file, at, env.XDG_STATE_HOME ? "XDG_STATE_HOME" : "HOME");
    break;
  }
  return file;
}

/** `path`'s stats, or undefined when it is not there or a file stands on its way. */
function statOrNot(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if (Reflect.get(error as object, "code") === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * Records that confined plugins may write `workspace` from now on; the returned function
 * ends the span (call it when the app closes). A span of an app that died without ending it
 * ends now, when it is found. Returns a no-op when there is no record; throws nothing.
 */
export function beginWritableSpan(file: string | undefined, workspace: string, warn: (message: string) => void): () => void {
  if (file === undefined) return () => {};
  try {
    const now = fileClock(file) ?? Date.now();
    moveOldRecord(file, now);
    return recordSpan(file, workspace, now, () => fileClock(file) ?? Date.now());
  } catch {
    warn(`cannot record in ${file} that plugins may write ${workspace}: a .env or config a plugin creates there will not be told from yours`);
    return () => {};
  }
}

/**
 * Throws `PLANTED_FILE` when `path` exists and it, or a link on its way, was created or
 * changed (written, renamed, linked, `chmod`ed) within a span in which confined plugins could
 * write a workspace holding it, unless the person trusts it as it is or the app wrote it.
 */
export function refusePlanted(file: string | undefined, path: string, what: string): void {
  if (file === undefined) return;
  const found = suspect(file, path);
  if (found === undefined) return;
  const { step, span, workspace } = found;
  // Made within the span, where the file system keeps birth times; else only known to have changed.
  const created = step.born > 0 && span.start <= step.born;
  throw sandboxErrors.planted(path, what, { link: step.link ? step.path : undefined, created, at: created ? step.born : step.ctime, workspace });
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
  return spanHolding(spansOf(file, born), path, born) !== undefined;
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
  const clean = file !== undefined && suspect(file, path) === undefined;
  const written = await write();
  const steps = pathSteps(path);
  if (file !== undefined && clean && steps !== undefined) trust(file, steps);
  return written;
}

/** The first link, or the file, on the way to `path` whose status changed within a span of a workspace holding it and that is not trusted as it is. */
function suspect(file: string, path: string): { step: PathStep; span: Span; workspace: string } | undefined {
  const steps = pathSteps(path) ?? [];
  if (steps.length === 0) return undefined;
  const old = readOldRecord(file).trusted;
  // Only a span begun by the latest change on the way can hold one.
  const spans = spansOf(file, Math.max(...steps.map(({ ctime }) => ctime)));
  const same = (step: PathStep) => (entry: { path: string; ino: number; ctime: number } | undefined) => entry?.path === step.path && entry.ino === step.ino && entry.ctime === step.ctime;
  for (const step of steps) {
    if (same(step)(trustedAt(file, step.path)) || old.some(same(step))) continue;
    const found = spanHolding(spans, step.path, step.ctime);
    if (found !== undefined) return { step, ...found };
  }
  return undefined;
}

/** The spans of this record and of the old one begun at or before `time`: those that can hold it. */
function spansOf(file: string, time: number): Span[] {
  return [...listSpans(file, time), ...readOldRecord(file).spans.map((span) => ({ ...span, workspace: () => span.workspace }))];
}

/** A span of a workspace holding `path` within which `time` lies. */
function spanHolding(spans: readonly Span[], path: string, time: number): { span: Span; workspace: string } | undefined {
  const now = Date.now();
  for (const span of spans) {
    if (time < span.start || endOf(span, now) < time) continue;
    const workspace = span.workspace();
    if (workspace !== undefined && isWithin(path, workspace)) return { span, workspace };
  }
  return undefined;
}

function trust(file: string, steps: readonly PathStep[]): void {
  try {
    recordTrusted(file, steps.map(({ path, ino, ctime }) => ({ path, ino, ctime })));
  } catch {
    // Not recorded: the file is refused at the next start, and the person can trust it then.
  }
}

/**
 * The time on the clock files are stamped with (the kernel's coarse one, which may lag what
 * Date.now() reads by a tick): the stamp of a file made in the record now, or undefined.
 * Spans are measured on it, so that a file made just before a span began never looks made
 * within it, nor one made just after it began outside it.
 */
function fileClock(file: string): number | undefined {
  const stamp = ownFile(file, "clock");
  try {
    mkdirSync(file, { recursive: true, mode: 0o700 });
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

function endOf(span: Pick<Span, "end" | "pid">, now: number): number {
  if (span.end !== null) return span.end;
  return isAlive(span.pid) ? Number.POSITIVE_INFINITY : now;
}
