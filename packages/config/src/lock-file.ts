/**
 * `plugboard.lock.json`, beside the config: the pinned fingerprints of the tools of mounted
 * MCP servers and third-party plugins (each tool's description and a hash of its input
 * schema), by the config's name for them. Written as sorted, stable JSON with a `version`,
 * so that it diffs well in version control; the sandbox keeps it read-only to every confined
 * process.
 */
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@plugboard/core";
import { readTextBounded } from "@plugboard/core/internal";
import * as v from "valibot";
import { PlugboardError } from "@plugboard/errors";
import { parseJson } from "./json.ts";
import { writeTrusted } from "@plugboard/sandbox/planted-files";
import { describeIssues, strict } from "./schema-kit.ts";

/** The lock file's name, beside the config. */
export const LOCK_FILE_NAME = "plugboard.lock.json";

/** The format this Plugboard reads and writes. */
export const LOCK_VERSION = 1;

/** What is pinned of one tool. */
export interface ToolFingerprint {
  /** The description the model is sent, as it was when pinned. */
  readonly description: string;
  /** `sha256:HEX` of the input schema as stable JSON. */
  readonly schema: string;
}

/**
 * What is pinned of one plugin's code: each file of its package (but its `node_modules` and
 * `.git`), by its path in the package, as `sha256:HEX` of its content, or `link:TARGET` for
 * a symbolic link.
 */
export type CodeFingerprint = Readonly<Record<string, string>>;

/**
 * The lock: for each plugin or mount (its name in the config), its tools by name as the model
 * sees them; and for each plugin whose code is pinned (by its package name), its files.
 */
export interface ToolLock {
  readonly version: typeof LOCK_VERSION;
  readonly tools: Readonly<Record<string, Readonly<Record<string, ToolFingerprint>>>>;
  readonly code?: Readonly<Record<string, CodeFingerprint>>;
}

const fingerprintSchema = strict({
  description: v.string((issue) => `expected a string, got ${issue.received}`),
  schema: v.pipe(
    v.string((issue) => `expected a string, got ${issue.received}`),
    v.regex(/^sha256:[0-9a-f]{64}$/, (issue) => `expected sha256: and 64 hex digits, got ${issue.received}`),
  ),
});

const record = <S extends v.GenericSchema>(item: S) => v.record(v.string(), item, (issue) => `expected an object, got ${issue.received}`);

const LockSchema = strict({
  version: v.literal(LOCK_VERSION, (issue) => `expected ${LOCK_VERSION} (the format this Plugboard reads), got ${issue.received}`),
  tools: record(record(fingerprintSchema)),
  code: v.optional(
    record(
      record(
        v.pipe(
          v.string((issue) => `expected a string, got ${issue.received}`),
          v.regex(/^(sha256:[0-9a-f]{64}|link:.+)$/, (issue) => `expected sha256: and 64 hex digits, or link: and a target, got ${issue.received}`),
        ),
      ),
    ),
  ),
});

/** The lock file of the config at `configPath`. */
export function lockFileOf(configPath: string): string {
  return join(dirname(configPath), LOCK_FILE_NAME);
}

/** An empty lock: nothing pinned yet. */
export function emptyLock(): ToolLock {
  return { version: LOCK_VERSION, tools: {} };
}

/**
 * The lock at `path`; an empty one when there is no file. A file that is not a lock this
 * Plugboard reads is a `CONFIG_INVALID` error saying how to fix it.
 */
export async function readLock(path: string): Promise<ToolLock> {
  let text: string;
  try {
    // Not a FIFO nor a device: the lock is read at every start of a pinned config (bounded-read.ts).
    text = readTextBounded(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return emptyLock();
    throw malformed(path, [(error as Error).message]);
  }
  const parsed = parseJson(text);
  if (!parsed.ok) throw malformed(path, [`line ${parsed.line}, column ${parsed.column}: ${parsed.problem}`]);
  const checked = v.safeParse(LockSchema, parsed.value);
  if (!checked.success) throw malformed(path, describeIssues(checked.issues));
  return checked.output;
}

/**
 * Writes an empty lock at `path` when there is none: before any confined plugin starts, so
 * that the sandbox keeps it read-only to every one of them (one that does not exist yet could
 * be written, pinning a change for the person).
 */
export async function ensureLock(path: string, record?: string): Promise<void> {
  if (!existsSync(path)) await writeLock(path, emptyLock(), record);
}

/**
 * Writes `lock` to `path` (sorted keys, two-space indents, a final newline). A lock that exists
 * is written in place, never replaced by a rename: a running confined host keeps the file it
 * was given read-only, and a new file at the path would not be that one. With the planted-file
 * `record`, the lock as written is trusted there (see `writeTrusted`): the next start reads it.
 */
export async function writeLock(path: string, lock: ToolLock, record?: string): Promise<void> {
  const text = `${stableJson(lock)}\n`;
  await writeTrusted(record, path, async () => {
    if (existsSync(path)) await writeFile(path, text);
    else await writeFileAtomic(path, text);
  });
}

/** The fingerprint of a tool as the model is sent it. */
export function fingerprintOf(description: string, inputSchema: unknown): ToolFingerprint {
  return { description, schema: `sha256:${new Bun.CryptoHasher("sha256").update(stableJson(inputSchema, 0)).digest("hex")}` };
}

/** `value` as JSON with every object's keys sorted, so that equal values are equal text. */
export function stableJson(value: unknown, indent = 2): string {
  return JSON.stringify(sorted(value), null, indent);
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value).filter(([, item]) => item !== undefined && typeof item !== "function");
  return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, item]) => [key, sorted(item)]));
}

function malformed(path: string, problems: readonly string[]): PlugboardError {
  return new PlugboardError(
    "CONFIG_INVALID",
    [
      `The lock file ${path} is not one this Plugboard can read:`,
      ...problems.map((problem) => `  ${problem}`),
      "Restore it from version control, or delete it: the tools of every mounted MCP server and third-party plugin, and the code of every plugin plugboard does not ship, are then pinned afresh as they are next loaded.",
    ].join("\n"),
  );
}
