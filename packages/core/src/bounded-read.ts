/**
 * Reading whole a file that someone else may have put in place — a config, its `.env`, a
 * plugin's manifest or `package.json`, the lock, a repository's git files — without trusting
 * what it is. Such a file can be a FIFO (a plain read waits for a writer: forever, and the
 * app hangs at its start), a link to a device that never ends (`/dev/zero`, read until memory
 * runs out) or a file that keeps growing. Each is refused before anything is read, with an
 * error that has a `code`, as the system's own errors do.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";

/** The most any such file may hold: far more than a config or manifest has, far less than a machine's memory. */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

/** Why a file was not read: `ENOTREG`, it is not a regular file (`EISDIR`, a folder); `EFBIG`, it holds more than allowed. */
export class BoundedReadError extends Error {
  override readonly name = "BoundedReadError";
  constructor(
    readonly code: "ENOTREG" | "EISDIR" | "EFBIG",
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

/**
 * The bytes of the regular file at `path` (links followed), if it holds at most `maxBytes`.
 * Throws the system's error (`ENOENT`, `EACCES`, `ELOOP`…) or a `BoundedReadError`. Opening
 * does not wait on a FIFO, nor make a terminal this process's own.
 *
 * @example const text = readFileBounded(path).toString("utf8");
 */
export function readFileBounded(path: string, maxBytes: number = MAX_READ_BYTES): Buffer {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY);
  try {
    const stats = fstatSync(fd);
    if (stats.isDirectory()) throw new BoundedReadError("EISDIR", "it is a folder, not a file", path);
    if (!stats.isFile()) throw new BoundedReadError("ENOTREG", `it is ${kindOf(stats)}, not a regular file`, path);
    if (stats.size > maxBytes) throw tooLarge(path, maxBytes);
    // Read to the end, whatever the size said (a file of /proc says 0; a file may grow meanwhile),
    // to at most one byte more than allowed: room enough to see that it holds more.
    let buffer = Buffer.allocUnsafe(Math.min(Math.max(stats.size, 4096), maxBytes) + 1);
    let filled = 0;
    for (;;) {
      if (filled === buffer.length) {
        if (filled > maxBytes) throw tooLarge(path, maxBytes);
        const grown = Buffer.allocUnsafe(Math.min(buffer.length * 2, maxBytes + 1));
        buffer.copy(grown, 0, 0, filled);
        buffer = grown;
      }
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** `readFileBounded`'s bytes as UTF-8 text (as `readFileSync(path, "utf8")` decodes them). */
export function readTextBounded(path: string, maxBytes: number = MAX_READ_BYTES): string {
  return readFileBounded(path, maxBytes).toString("utf8");
}

/**
 * A regular file's text, whatever its size: only a FIFO or a device is refused. For a file
 * whose content decides what is protected or said (a repository's git config, a hook's
 * script), which another program reads at any size: one made too large to read here would be
 * a way around the look.
 */
export function readRegularText(path: string): string {
  return readTextBounded(path, Number.POSITIVE_INFINITY);
}

function tooLarge(path: string, maxBytes: number): BoundedReadError {
  return new BoundedReadError("EFBIG", `it holds more than ${maxBytes} bytes, the most read`, path);
}

/** What a file that is not a regular one is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "a special file";
}
