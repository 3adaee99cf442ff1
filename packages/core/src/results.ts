/**
 * The results file: where a large result is kept whole, `.plugboard/results/CALL_ID.txt` in the
 * workspace (a folder git-ignored by its own `.gitignore`). The runtime saves a result over
 * `maxBytes` there (`@plugboard/runtime`'s result caps); a tool that caps its own output (bash)
 * writes what it cuts to the same file as it streams.
 *
 * The folder is the one place of `.plugboard/` a confined plugin may write, so whatever is in
 * it may have been planted: every file is created here with `O_EXCL | O_NOFOLLOW` (never
 * written through a link, never over an existing file), through the folder opened without
 * following links and checked to be the workspace's own.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, realpathSync, writeSync } from "node:fs";
import { type FileHandle, open, realpath } from "node:fs/promises";
import { join } from "node:path";

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

/** The line that stands where a result was cut when the whole of it could not be saved, and why. */
export function resultUnsavedLine(bytes: number, why: string): string {
  return `… ${bytes} bytes cut; the whole result could not be saved: ${why}`;
}

/** The line that stands where a tool cut its own output without a results file: `... (N characters cut) ...`. */
export function charactersCutLine(count: number): string {
  return `... (${count} characters cut) ...`;
}

/** What ends a line cut short (`read_file`'s long lines): ` ... (N more bytes in this line)`. */
export function lineCutMark(bytes: number): string {
  return ` ... (${bytes} more bytes in this line)`;
}

/**
 * Every mark of a cut text: the lines above (`resultCutLine`, `resultUnsavedLine`,
 * `charactersCutLine`) with the newlines around them, and the end of a line cut short
 * (`lineCutMark`) — what the runtime's redaction looks beside for a secret cut in two.
 */
export const CUT_MARK = /\n(?:… \d+ bytes cut; [^\n]*|\.\.\. \(\d+ characters cut\) \.\.\.)\n| \.\.\. \(\d+ more bytes in this line\)/;

/** The line a results file ends with when it reached `maxFileBytes`. */
export function resultDroppedLine(bytes: number, maxFileBytes: number): string {
  return `… ${bytes} more bytes dropped: a results file keeps at most ${maxFileBytes} bytes (results.maxFileBytes in the config)`;
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
