/**
 * The record of earlier versions: one file, `writable-spans.json` beside the record's folder,
 * rewritten whole at each change. Its spans and trusted entries still count: readers read it
 * while it is there, and the next span's beginning moves them into the folder (copied first, so
 * a reader never misses them; then the file renamed away and copied again, so a write by a
 * process of an earlier version meanwhile is not lost) and removes the file.
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { isAlive } from "@plugboard/core/process";
import { recordOldSpans } from "./span-record.ts";
import { recordOldTrusted, type Trusted } from "./trusted-record.ts";

interface OldSpan {
  readonly workspace: string;
  readonly start: number;
  readonly end: number | null;
  readonly pid: number;
}

export interface OldRecord {
  readonly spans: readonly OldSpan[];
  readonly trusted: readonly Trusted[];
}

/** The old record read last, with the file's identity then (every write of it made a new inode). */
let lastRead: { readonly file: string; readonly identity: string; readonly record: OldRecord } | undefined;

/** The old record beside `folder`, empty when there is none. */
export function readOldRecord(folder: string): OldRecord {
  const file = `${folder}.json`;
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats === undefined) return { spans: [], trusted: [] };
  const identity = `${stats.ino} ${stats.size} ${stats.mtimeMs} ${stats.ctimeMs}`;
  if (lastRead?.file === file && lastRead.identity === identity) return lastRead.record;
  const record = parse(file);
  lastRead = { file, identity, record };
  return record;
}

/**
 * Moves the old record beside `folder` into it (a span left open by a process gone ends `now`),
 * with what a process of an earlier version left killed midway: a move's file, its temporary files.
 */
export function moveOldRecord(folder: string, now: number): void {
  const file = `${folder}.json`;
  for (const name of readdirSync(dirname(folder))) {
    const [pid, kind] = name.startsWith(`${basename(file)}.`) ? name.slice(basename(file).length + 1).split(".") : [];
    if (pid === undefined || !/^\d+$/.test(pid) || isAlive(Number(pid))) continue;
    const leftover = `${file}.${pid}.${kind}`;
    if (kind === "moving") copy(leftover, folder, now);
    if (kind === "moving" || kind === "tmp" || kind === "clock") rmSync(leftover, { force: true });
  }
  if (statSync(file, { throwIfNoEntry: false }) === undefined) return;
  copy(file, folder, now);
  const moving = `${file}.${process.pid}.moving`;
  try {
    renameSync(file, moving);
  } catch {
    return; // Another process moved it.
  }
  copy(moving, folder, now);
  rmSync(moving, { force: true });
}

function copy(file: string, folder: string, now: number): void {
  const { spans, trusted } = parse(file);
  recordOldSpans(folder, spans, now);
  for (const entry of trusted) recordOldTrusted(folder, entry);
}

function parse(file: string): OldRecord {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<OldRecord>;
    // An entry without an inode trusted a file by its birth time, which a rename keeps: it vouches for nothing now.
    const trusted = Array.isArray(parsed.trusted) ? parsed.trusted.filter((entry) => typeof entry.ino === "number") : [];
    const spans = Array.isArray(parsed.spans) ? parsed.spans.filter((span) => typeof span.workspace === "string" && typeof span.start === "number") : [];
    return { spans, trusted };
  } catch {
    return { spans: [], trusted: [] };
  }
}
