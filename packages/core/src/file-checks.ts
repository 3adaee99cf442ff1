/**
 * Checks and failure texts shared by the file tools, so that reading, writing and editing
 * describe a missing file, a folder, a binary file or a refused write in the same words.
 * Every function takes the resolved path to act on and the path to show the model.
 */
import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import { ToolError } from "./errors.ts";

/** The file tools' expected failures, as `ToolError`s to throw (the runtime adds `Error: `). */
export const fileErrors = {
  notFound: (path: string) => new ToolError(`File not found: ${path}`),
  isDirectory: (path: string) => new ToolError(`${path} is a directory, not a file`),
  notRegularFile: (path: string) => new ToolError(`${path} is not a regular file`),
  tooLarge: (path: string, bytes: number, limit: number) =>
    new ToolError(`${path} is ${bytes} bytes, over the limit of ${limit} bytes`),
  binary: (path: string) => new ToolError(`${path} is a binary file, not UTF-8 text`),
} as const;

/**
 * Stats `absolute`: `undefined` when nothing is there; throws `fileErrors.isDirectory` or
 * `fileErrors.notRegularFile` for a folder, a FIFO, a socket or a device.
 *
 * @example const stats = await statFile(abs, ctx.workspace.relative(abs));
 */
export async function statFile(absolute: string, shown: string): Promise<Stats | undefined> {
  let stats: Stats;
  try {
    stats = await stat(absolute);
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw fileSystemError(error, shown);
  }
  if (stats.isDirectory()) throw fileErrors.isDirectory(shown);
  if (!stats.isFile()) throw fileErrors.notRegularFile(shown);
  return stats;
}

/**
 * Decodes UTF-8 text exactly, keeping a byte order mark so that writing the text back
 * changes nothing else. Throws `fileErrors.binary` for NUL bytes or invalid UTF-8.
 */
export function decodeText(bytes: Uint8Array, shown: string): string {
  if (bytes.includes(0)) throw fileErrors.binary(shown);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw fileErrors.binary(shown);
  }
}

const MESSAGES: Readonly<Record<string, (path: string) => string>> = {
  ENOENT: (path) => `File not found: ${path}`,
  EISDIR: (path) => `${path} is a directory, not a file`,
  ENOTDIR: (path) => `A parent of ${path} is a file, not a folder`,
  EEXIST: (path) => `A parent of ${path} is a file, not a folder`,
  EACCES: (path) => `Permission denied: ${path}`,
  EPERM: (path) => `Permission denied: ${path}`,
  EROFS: (path) => `Read-only file system: ${path}`,
  ENOSPC: (path) => `No space left on the device to write ${path}`,
  EDQUOT: (path) => `Disk quota exceeded writing ${path}`,
  ENAMETOOLONG: (path) => `Path too long: ${path}`,
  EMFILE: (path) => `Too many open files to open ${path}; try again`,
  ENFILE: (path) => `Too many open files to open ${path}; try again`,
  ELOOP: (path) => `Too many levels of symbolic links in ${path}`,
  EBUSY: (path) => `${path} is busy`,
  ETXTBSY: (path) => `${path} is busy`,
  EIO: (path) => `Input/output error on ${path}`,
};

/**
 * Turns an operating-system failure (missing file, permission, read-only or full disk, a
 * file where a folder should be, any other `E…` code) into a `ToolError` naming `shown`;
 * any other error is returned unchanged, to be rethrown as the programming error it is.
 *
 * @example
 * try { await writeFileAtomic(abs, content) } catch (error) { throw fileSystemError(error, shown) }
 */
export function fileSystemError(error: unknown, shown: string): unknown {
  if (error instanceof ToolError) return error;
  const code = errnoOf(error) ?? "";
  const message = MESSAGES[code];
  if (message) return new ToolError(message(shortened(shown)));
  return OS_ERROR_CODE.test(code) ? new ToolError(`Cannot access ${shortened(shown)} (${code})`) : error;
}

/** Node's own argument errors are `ERR_…`; the operating system's are `E…`. */
const OS_ERROR_CODE = /^E[A-Z0-9]+$/;

/** A path as shown in an error: a very long one is cut, its length said. */
function shortened(path: string): string {
  return path.length <= 300 ? path : `${path.slice(0, 200)}… (${path.length} characters)`;
}

function errnoOf(error: unknown): string | undefined {
  return error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
}
