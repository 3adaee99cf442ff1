/**
 * Large results go to a file. A result over `maxBytes` is saved whole to
 * `.plugboard/results/CALL_ID.txt` in the workspace (a folder git-ignored by its own
 * `.gitignore`), and the model gets its head and tail around one line naming the file. A tool
 * that caps its own output (bash) writes what it cuts to the same file as it streams.
 *
 * The folder is the one place of `.plugboard/` a confined plugin may write, so whatever is in
 * it may have been planted: every file is created here with `O_EXCL | O_NOFOLLOW` (never
 * written through a link, never over an existing file), through the folder opened without
 * following links and checked to be the workspace's own.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, realpathSync, writeSync } from "node:fs";
import { type FileHandle, open, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { ToolResult } from "./contract.ts";

/** The results folder, relative to the workspace root. */
export const RESULTS_FOLDER = ".plugboard/results";

/** How large a result the model gets whole, and how large a results file may grow. */
export interface ResultsLimits {
  /** UTF-8 bytes of a result the model gets whole; a larger one is saved to its file. @default 50000 */
  readonly maxBytes: number;
  /** Bytes a results file holds at most; beyond them it says how many were dropped. @default 67108864 (64 MiB) */
  readonly maxFileBytes: number;
}

/** The file a call's large result goes to, and the limits: what a tool's context carries. */
export interface ResultsFile extends ResultsLimits {
  /** Relative to the workspace root: `.plugboard/results/CALL_ID.txt`. */
  readonly path: string;
}

export const DEFAULT_RESULTS_LIMITS: ResultsLimits = Object.freeze({ maxBytes: 50_000, maxFileBytes: 64 * 1024 * 1024 });

/** The line that stands where a result was cut, naming the file that holds it whole. */
export function resultCutLine(bytes: number, path: string): string {
  return `… ${bytes} bytes cut; the whole result is in ${path} (read_file with offset/limit pages it)`;
}

/** The line a results file ends with when it reached `maxFileBytes`. */
export function resultDroppedLine(bytes: number, maxFileBytes: number): string {
  return `… ${bytes} more bytes dropped: a results file keeps at most ${maxFileBytes} bytes (results.maxFileBytes in the config)`;
}

/**
 * A call id as a file name: letters, digits, `_` and `-` kept, every other character `_`, at
 * most 100 characters (`../../x` → `______x`, an empty id → `call`).
 */
export function safeResultName(callId: string): string {
  const safe = callId.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100);
  return safe === "" ? "call" : safe;
}

/**
 * The results file for `callId` in the workspace at `root`: `CALL_ID.txt`, or `CALL_ID-2.txt`
 * (and so on) when that name is taken, by an earlier session or by anything planted there.
 */
export function resultsFileFor(root: string, callId: string, limits: ResultsLimits): ResultsFile {
  const name = safeResultName(callId);
  for (let n = 1; ; n++) {
    const path = `${RESULTS_FOLDER}/${n === 1 ? name : `${name}-${n}`}.txt`;
    if (lstatSync(join(root, path), { throwIfNoEntry: false }) === undefined) return { ...limits, path };
  }
}

/** Why a results file could not be made: the model's text says it. */
export class ResultsFolderError extends Error {}

/**
 * Creates `path` (relative to `root`, a file of the results folder) for writing, or, when that
 * name is taken — by a link too, which is never followed — the next free one (`NAME-2.txt`);
 * the folder and its `.gitignore` are made first when missing. Resolves to the file and the
 * path it has. Throws `ResultsFolderError` when `.plugboard` or its `results` is not a real
 * folder of the workspace, and what the system says when it cannot write there.
 */
export async function createResultsFile(root: string, path: string): Promise<{ readonly handle: FileHandle; readonly path: string }> {
  const name = path.slice(RESULTS_FOLDER.length + 1);
  if (!path.startsWith(`${RESULTS_FOLDER}/`) || name === "" || name.includes("/")) throw new ResultsFolderError(`${path} is not a file of ${RESULTS_FOLDER}`);
  prepareResultsFolder(root);
  const folder = await open(join(root, RESULTS_FOLDER), constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    // Through the opened folder itself (Linux's /proc), so that a link swapped in above it after the check leads nowhere.
    const at = process.platform === "linux" ? `/proc/self/fd/${folder.fd}` : join(root, RESULTS_FOLDER);
    if ((await realpath(at)) !== join(realpathSync(root), RESULTS_FOLDER)) throw notAFolder(RESULTS_FOLDER);
    const dot = name.indexOf(".");
    const [base, extension] = dot === -1 ? [name, ""] : [name.slice(0, dot), name.slice(dot)];
    for (let n = 1; n <= 1000; n++) {
      const free = n === 1 ? name : `${base}-${n}${extension}`;
      try {
        const handle = await open(join(at, free), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
        return { handle, path: `${RESULTS_FOLDER}/${free}` };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      }
    }
    throw new ResultsFolderError(`every name from ${path} on is taken in ${RESULTS_FOLDER}`);
  } finally {
    await folder.close();
  }
}

/**
 * Makes `.plugboard/results/` in the workspace and its `.gitignore` (`*`) when missing. Before a
 * confined plugin starts, so that the sandbox protects `.plugboard/` and keeps only this folder
 * writable. Throws `ResultsFolderError` when either folder is a link or not a folder.
 */
export function prepareResultsFolder(root: string): void {
  for (const folder of [".plugboard", RESULTS_FOLDER]) {
    const at = join(root, folder);
    try {
      mkdirSync(at, { mode: 0o755 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new ResultsFolderError(`${folder} cannot be made: ${(error as Error).message}`);
    }
    const stats = lstatSync(at);
    if (!stats.isDirectory()) throw notAFolder(folder);
  }
  writeGitignore(join(root, RESULTS_FOLDER, ".gitignore"));
}

/**
 * The result the model gets: `result` itself when it fits `file.maxBytes`, otherwise its head
 * and tail around `resultCutLine`, the whole of it saved to `file` (or, when that name was
 * taken meanwhile, the next free one). When it cannot be saved, the line says why.
 */
export async function capResult(result: ToolResult, root: string, file: ResultsFile): Promise<ToolResult> {
  const bytes = Buffer.from(result.content);
  if (bytes.length <= file.maxBytes) return result;
  let saved: string;
  try {
    saved = await saveWhole(root, file, bytes);
  } catch (error) {
    // An operating-system failure (no space, a folder it may not write) or a folder that is not ours: said, not thrown.
    if (!(error instanceof ResultsFolderError) && !(error instanceof Error && "code" in error)) throw error;
    const why = error.message;
    return { content: cutAround(bytes, file.maxBytes, (cut) => `… ${cut} bytes cut; the whole result could not be saved: ${why}`), isError: result.isError };
  }
  return { content: cutAround(bytes, file.maxBytes, (cut) => resultCutLine(cut, saved)), isError: result.isError };
}

/** Writes `bytes` (up to `maxFileBytes`) to `file`, or the next free name after it; returns the path written. */
async function saveWhole(root: string, file: ResultsFile, bytes: Buffer): Promise<string> {
  const { handle, path } = await createResultsFile(root, file.path);
  try {
    const kept = bytes.subarray(0, file.maxFileBytes);
    await handle.write(kept);
    if (kept.length < bytes.length) await handle.write(`\n${resultDroppedLine(bytes.length - kept.length, file.maxFileBytes)}\n`);
  } finally {
    await handle.close();
  }
  return path;
}

/** `bytes` cut to `maxBytes`: a head and a tail (whole characters) around the line `line(cut)` makes. */
function cutAround(bytes: Buffer, maxBytes: number, line: (cut: number) => string): string {
  const room = Math.max(0, maxBytes - Buffer.byteLength(line(bytes.length)) - 2);
  const head = utf8Head(bytes, Math.ceil(room / 2));
  const tail = utf8Tail(bytes, Math.floor(room / 2));
  return `${head.toString()}\n${line(bytes.length - head.length - tail.length)}\n${tail.toString()}`;
}

/** The first `count` bytes or fewer, ending on a character boundary. */
function utf8Head(bytes: Buffer, count: number): Buffer {
  let end = Math.min(count, bytes.length);
  // Back to the start of the character the cut falls in (continuation bytes are 10xxxxxx).
  while (end > 0 && end < bytes.length && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end);
}

/** The last `count` bytes or fewer, starting on a character boundary. */
function utf8Tail(bytes: Buffer, count: number): Buffer {
  let start = Math.max(0, bytes.length - count);
  while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start++;
  return bytes.subarray(start);
}

function writeGitignore(path: string): void {
  try {
    // Created only: one already there (or a link planted in its place) is left as it is, never written through.
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o644);
    try {
      writeSync(fd, "*\n");
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new ResultsFolderError(`${RESULTS_FOLDER}/.gitignore cannot be made: ${(error as Error).message}`);
  }
}

function notAFolder(folder: string): ResultsFolderError {
  return new ResultsFolderError(`${folder} in the workspace is not a folder (a link or a file); remove it so that it can be made`);
}
