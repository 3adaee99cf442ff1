/**
 * The record of the spans in which confined plugins could write a workspace, kept so that
 * processes of the same user at once (the CLI and `plugboard web`, two terminals) lose none of
 * each other's spans, with no lock a killed process could leave held: a folder (0700) in which
 * each span is a file of its own, which only the process that began it writes.
 *
 * - `START-PID-RANDOM`, holding the workspace, made with O_EXCL: a span still open.
 * - `START-PID-RANDOM-END`: the same span, ended (its owner renames it so, at once): one listing
 *   tells every span's times, and only the workspace of a span whose times matter is read.
 * - `.PID-RANDOM.tmp` / `.clock`: written before a rename into place, or stamped to read the file
 *   clock; what a killed process left of these is removed by the next span's beginning.
 *
 * A span whose owner died without ending it ends when it is found (readers take it as ending
 * now; the next span's beginning renames it ended, right after it is recorded, and two doing
 * so at once is harmless: one rename wins). That beginning also drops the oldest ended spans
 * beyond `KEPT`; a reader that meets a span removed under it takes it as gone, as it would
 * have a moment later.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive } from "@plugboard/core/process";

/** A span in which confined plugins could write a workspace; `end` is null while its owner runs. */
export interface Span {
  readonly start: number;
  readonly end: number | null;
  readonly pid: number;
  /** The workspace, read when asked (undefined when the span is gone, or not yet written). */
  readonly workspace: () => string | undefined;
}

/** Spans kept (the oldest ended ones are dropped first). */
export const KEPT = 500;

const TIME = String.raw`\d+(?:\.\d+)?`;
const SPAN_NAME = new RegExp(`^(${TIME})-(\\d+)-([0-9a-z]+)(?:-(${TIME}))?$`);
const LEFTOVER = /^\.(\d+)-[0-9a-z]+\.(?:tmp|clock)$/;

interface Listed {
  readonly id: string;
  readonly name: string;
  readonly start: number;
  readonly pid: number;
  readonly end: number | null;
}

/**
 * The spans in `folder` begun at or before `time` (the only ones that can hold it), without
 * the workspace read yet; none when it cannot be listed. A name's start is read before
 * anything else of it: with `KEPT` spans in the record, a start's checks parse only those that matter.
 */
export function listSpans(folder: string, time: number): Span[] {
  return shared(folder).flatMap((name) => {
    // NaN for a name that is not a span's, which parsed() then refuses anyway.
    if (Number.parseFloat(name) > time) return [];
    const entry = parsed(name);
    return entry === undefined ? [] : [{ start: entry.start, pid: entry.pid, end: entry.end, workspace: () => workspaceOf(folder, entry.id, name) }];
  });
}

/**
 * Records a span of `workspace` begun at `now` (ending the spans of owners that died and
 * dropping the oldest beyond `KEPT` first); returns the function that ends it at the time
 * `clock` then tells. Throws when the span cannot be recorded.
 */
export function recordSpan(folder: string, workspace: string, now: number, clock: () => number): () => void {
  snapshot = undefined;
  const id = `${now}-${process.pid}-${randomPart()}`;
  writeFileSync(join(folder, id), workspace, { flag: "wx", mode: 0o600 });
  // Tidied once what began the span has run (a host's start waits for it): the record only
  // holds a span more meanwhile, and readers take a dead owner's open span as ending now anyway.
  setImmediate(() => {
    try {
      tidy(folder, now);
    } catch {
      // The record's folder went meanwhile: the next beginning tidies what is left.
    }
  });
  return () => {
    try {
      snapshot = undefined;
      renameSync(join(folder, id), join(folder, `${id}-${clock()}`));
    } catch {
      // The record's folder is gone: nothing is left to end.
    }
  };
}

/** A name for a file only this process writes in `folder`, ending in `kind` (see `LEFTOVER`). */
export function ownFile(folder: string, kind: "tmp" | "clock"): string {
  return join(folder, `.${process.pid}-${randomPart()}.${kind}`);
}

/** Writes the spans of another version's record as files (each once: a second time it exists already). */
export function recordOldSpans(folder: string, spans: readonly { readonly workspace: string; readonly start: number; readonly end: number | null; readonly pid: number }[], now: number): void {
  snapshot = undefined;
  const known = new Set(listed(folder).map(({ id }) => id));
  for (const span of spans) {
    // One process began a span of each writable path at once: the workspace tells them apart.
    const id = `${span.start}-${span.pid}-o${Bun.hash(span.workspace).toString(36)}`;
    if (known.has(id)) continue;
    known.add(id);
    const end = span.end ?? (isAlive(span.pid) ? undefined : now);
    const temporary = ownFile(folder, "tmp");
    writeFileSync(temporary, span.workspace, { mode: 0o600 });
    renameSync(temporary, join(folder, end === undefined ? id : `${id}-${end}`));
  }
}

/**
 * The listing `listSpans` reads, one for every check made in one synchronous run (a start's
 * checks of the config, its .env and its lock; listing `KEPT` names costs about a millisecond):
 * each write of this process drops it, and a span another process begins meanwhile is taken as
 * begun a moment after, as it would be just after a listing of its own. Dropped at the next
 * microtask.
 */
let snapshot: { readonly folder: string; readonly names: readonly string[] } | undefined;

function shared(folder: string): readonly string[] {
  if (snapshot?.folder === folder) return snapshot.names;
  const names = namesIn(folder);
  snapshot = { folder, names };
  queueMicrotask(() => {
    snapshot = undefined;
  });
  return names;
}

function namesIn(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function listed(folder: string): Listed[] {
  return namesIn(folder).flatMap((name) => parsed(name) ?? []);
}

/** The span a file's name records, or undefined when it is not a span's. */
function parsed(name: string): Listed | undefined {
  const match = SPAN_NAME.exec(name);
  if (match === null) return undefined;
  const [, start, pid, random, end] = match;
  return { id: `${start}-${pid}-${random}`, name, start: Number(start), pid: Number(pid), end: end === undefined ? null : Number(end) };
}

/** Workspaces read, by record and span: a span's file is written once, and renamed only to end it. */
const workspaces = new Map<string, string>();

function workspaceOf(folder: string, id: string, name: string): string | undefined {
  const known = workspaces.get(join(folder, id));
  if (known !== undefined) return known;
  // Listed open and ended since, under its new name; gone when dropped.
  const names = [name, ...listed(folder).flatMap((entry) => (entry.id === id && entry.name !== name ? [entry.name] : []))];
  for (const candidate of names) {
    try {
      const workspace = readFileSync(join(folder, candidate), "utf8");
      // Empty only while its owner writes it, before any plugin of its starts: it covers nothing yet.
      if (workspace === "") return undefined;
      workspaces.set(join(folder, id), workspace);
      return workspace;
    } catch {}
  }
  return undefined;
}

/** Ends the spans of owners that died, drops the oldest ended spans beyond `KEPT`, removes dead processes' leftovers. */
function tidy(folder: string, now: number): void {
  // One plain pass over the names, with `KEPT` of them: only an open span's pid is read, and a name is made only for one ended now.
  let spans = 0;
  const ended: string[] = [];
  for (const name of namesIn(folder)) {
    const match = SPAN_NAME.exec(name);
    if (match === null) {
      const pid = LEFTOVER.exec(name)?.[1];
      if (pid !== undefined && !isAlive(Number(pid))) rmSync(join(folder, name), { force: true });
      continue;
    }
    spans += 1;
    if (match[4] !== undefined) ended.push(name);
    else if (!isAlive(Number(match[2]))) {
      try {
        renameSync(join(folder, name), join(folder, `${name}-${now}`));
        ended.push(`${name}-${now}`);
      } catch {
        // Another process ended or dropped it first.
      }
    }
  }
  const excess = spans - KEPT;
  if (excess <= 0) return;
  // A name starts with its span's start.
  ended.sort((a, b) => Number.parseFloat(a) - Number.parseFloat(b));
  for (const name of ended.slice(0, excess)) rmSync(join(folder, name), { force: true });
}

function randomPart(): string {
  return crypto.getRandomValues(new Uint32Array(2)).reduce((text, part) => text + part.toString(36), "");
}
