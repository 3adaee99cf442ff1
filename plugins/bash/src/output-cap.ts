/**
 * Bounded capture of a command's output: keeps the first half of the cap and a rolling
 * tail of the last half while the text streams in, so memory stays flat however much a
 * command prints, and the number of characters cut is known exactly.
 */
import { charactersCutLine } from "@plugboard/core";

/** Captures at most `limit` characters of a stream: its head and its tail. */
export class OutputCap {
  readonly limit: number;
  readonly #headLimit: number;
  readonly #tailLimit: number;
  #head = "";
  #tail = "";
  #total = 0;
  #totalBytes = 0;

  constructor(limit: number) {
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError(`Invalid output limit: ${limit}`);
    this.limit = limit;
    this.#headLimit = Math.ceil(limit / 2);
    this.#tailLimit = limit - this.#headLimit;
  }

  /** Characters pushed so far, kept or not. */
  get total(): number {
    return this.#total;
  }

  /** UTF-8 bytes pushed so far, kept or not. */
  get totalBytes(): number {
    return this.#totalBytes;
  }

  /** Adds the next piece of the stream (`bytes` long as it came, in UTF-8). */
  push(chunk: string, bytes: number = Buffer.byteLength(chunk)): void {
    this.#total += chunk.length;
    this.#totalBytes += bytes;
    const room = this.#headLimit - this.#head.length;
    if (room > 0) {
      this.#head += chunk.slice(0, room);
      if (chunk.length <= room) return;
      chunk = chunk.slice(room);
    }
    this.#tail += chunk;
    // Trimming only when the tail doubles keeps the copying linear in the input size.
    if (this.#tail.length > 2 * this.#tailLimit) this.#tail = lastChars(this.#tail, this.#tailLimit);
  }

  /**
   * The captured text cut to `budget` characters (at most `limit`): whole when it fits,
   * otherwise its first and last halves around the line `marker` makes of the characters
   * cut and the text kept (by default `... (N characters cut) ...`).
   */
  text(budget: number = this.limit, marker: (cutChars: number, kept: string) => string = cutMarker): string {
    if (budget > this.limit) throw new RangeError(`Budget ${budget} exceeds the limit ${this.limit}`);
    if (this.#total <= budget) return this.#head + this.#tail;
    const headChars = Math.ceil(budget / 2);
    const tailChars = budget - headChars;
    const keptAll = this.#head.length + this.#tail.length === this.#total;
    const tail = keptAll ? this.#head + this.#tail : this.#tail;
    const head = this.#head.slice(0, headChars);
    const end = lastChars(tail, tailChars);
    return `${head}${marker(this.#total - budget, head + end)}${end}`;
  }
}

/**
 * How a shared budget of `limit` characters is divided between two streams: each gets what
 * it needs, and when both need more, each gets at least half.
 */
export function shareBudget(first: number, second: number, limit: number): [number, number] {
  const forFirst = Math.min(first, Math.max(Math.ceil(limit / 2), limit - second));
  return [forFirst, Math.min(second, limit - forFirst)];
}

/** The line that stands where characters were cut. */
export function cutMarker(count: number): string {
  return `\n${charactersCutLine(count)}\n`;
}

function lastChars(text: string, count: number): string {
  return text.slice(text.length - count);
}
