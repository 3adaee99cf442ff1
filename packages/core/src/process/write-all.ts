/**
 * Writes all of `text` to the descriptor `fd` before it returns, however many writes that
 * takes (a pipe takes a large text in parts; Bun's `writeSync` waits while a pipe is full,
 * even one its reader made non-blocking). A failure (EPIPE: the reader is gone) is thrown, for
 * the caller to judge.
 *
 * @example writeAll(2, "plugboard: a note\n");
 */
import { writeSync } from "node:fs";

export function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at);
}
