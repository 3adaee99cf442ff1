/**
 * Generating big inputs: a text file of numbered 64-byte lines (so any size in MB holds
 * more than a million lines), and a tree of small files.
 */
import { mkdir, open, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Every generated line is this long, newline included. */
export const LINE_BYTES = 64;

/** The text of line `number` (1-based), without its newline. */
export function lineText(number: number): string {
  return `line ${String(number).padStart(12, "0")} `.padEnd(LINE_BYTES - 1, "x");
}

/** A line replaced by `text` (padded to the line length), for the edit benchmark. */
export interface SpecialLine {
  readonly number: number;
  readonly text: string;
}

/** Writes `lines` numbered lines to `path`, in 1 MiB chunks; returns the byte size. */
export async function writeNumberedLines(path: string, lines: number, special?: SpecialLine): Promise<number> {
  const perChunk = (1024 * 1024) / LINE_BYTES;
  const handle = await open(path, "w");
  try {
    for (let first = 1; first <= lines; first += perChunk) {
      const last = Math.min(lines, first + perChunk - 1);
      let chunk = "";
      for (let number = first; number <= last; number++) {
        chunk += `${number === special?.number ? special.text.padEnd(LINE_BYTES - 1, " ") : lineText(number)}\n`;
      }
      await handle.write(chunk);
    }
  } finally {
    await handle.close();
  }
  return lines * LINE_BYTES;
}

/**
 * Writes `count` small files under `root`, 100 per folder in two levels of folders;
 * every other file is `.ts`, so half of them match `**\/*.ts`.
 */
export async function writeFileTree(root: string, count: number): Promise<number> {
  let typescript = 0;
  for (let index = 0; index < count; index += 100) {
    const folder = join(root, `pkg-${Math.floor(index / 1000)}`, `mod-${Math.floor(index / 100) % 10}`);
    await mkdir(folder, { recursive: true });
    const writes: Promise<void>[] = [];
    for (let file = index; file < Math.min(count, index + 100); file++) {
      const ts = file % 2 === 0;
      if (ts) typescript++;
      writes.push(writeFile(join(folder, `file-${file}.${ts ? "ts" : "js"}`), `export const value = ${file};\n`));
    }
    await Promise.all(writes);
  }
  return typescript;
}
