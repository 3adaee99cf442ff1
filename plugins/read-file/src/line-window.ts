/**
 * Streams a file once, in fixed-size chunks, and keeps only the lines asked for: lines
 * before the window and after it are counted, never stored, so reading two lines deep in a
 * huge file costs one chunk of memory. Works on bytes; only the kept lines are decoded.
 */
import { open } from "node:fs/promises";
import { fileErrors, lineCutMark } from "@plugboard/core";

/** Which lines to keep and how much of them. */
export interface WindowRequest {
  /** 1-based number of the first line to keep. */
  readonly offset: number;
  /** How many lines to keep; all the rest when undefined. */
  readonly limit: number | undefined;
  /** Characters kept of one line; a longer line is cut with a marker. */
  readonly maxLineChars: number;
  /** Characters of kept lines (newlines included); the first line is always kept. */
  readonly maxOutputChars: number;
}

/** The kept lines and what the file holds around them. */
export interface LineWindow {
  readonly lines: readonly string[];
  /** Lines in the whole file; a last line without a final newline counts. */
  readonly totalLines: number;
  /** True when `maxOutputChars` stopped the window before `limit` lines. */
  readonly capped: boolean;
}

// Large chunks: counting the newlines of a huge file is bound by the number of reads.
export const CHUNK_BYTES = 1024 * 1024;
/** A NUL byte this close to the start marks a binary file. */
const SNIFF_BYTES = 8192;
const NEWLINE = 0x0a;

/**
 * Reads the window of `absolute`. Throws `fileErrors.binary(shown)` for a NUL byte in the
 * first 8 KB, or a NUL byte or invalid UTF-8 in a kept line.
 */
export async function readLineWindow(absolute: string, shown: string, request: WindowRequest): Promise<LineWindow> {
  const last = request.limit === undefined ? Number.POSITIVE_INFINITY : request.offset + request.limit - 1;
  const kept = new KeptLines(request, shown);
  const handle = await open(absolute, "r");
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let line = 1;
    let position = 0;
    let lineOpen = false;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (position < SNIFF_BYTES && chunk.subarray(0, SNIFF_BYTES - position).includes(0)) {
        throw fileErrors.binary(shown);
      }
      position += bytesRead;
      for (let at = 0; at < bytesRead; ) {
        const newline = chunk.indexOf(NEWLINE, at);
        const wanted = line >= request.offset && line <= last && !kept.full;
        if (wanted) kept.add(chunk.subarray(at, newline === -1 ? bytesRead : newline));
        lineOpen = newline === -1;
        if (lineOpen) break;
        if (wanted) kept.finish();
        line++;
        at = newline + 1;
      }
    }
    if (lineOpen && line >= request.offset && line <= last && !kept.full) kept.finish();
    return { lines: kept.lines, totalLines: lineOpen ? line : line - 1, capped: kept.full };
  } finally {
    await handle.close();
  }
}

/** The kept lines, within the output cap; holds at most one cut line's bytes at a time. */
class KeptLines {
  readonly lines: string[] = [];
  full = false;
  #chars = 0;
  #parts: Buffer[] = [];
  #keptBytes = 0;
  #lineBytes = 0;
  /** Enough bytes for `maxLineChars` UTF-16 units: at most 3 bytes each, plus a split character. */
  readonly #keepBytes: number;

  constructor(
    private readonly request: WindowRequest,
    private readonly shown: string,
  ) {
    this.#keepBytes = 3 * request.maxLineChars + 3;
  }

  /** Adds the next bytes of the current line (copied: the read buffer is reused). */
  add(bytes: Uint8Array): void {
    this.#lineBytes += bytes.length;
    const room = this.#keepBytes - this.#keptBytes;
    if (room <= 0) return;
    const part = Buffer.from(bytes.subarray(0, room));
    this.#parts.push(part);
    this.#keptBytes += part.length;
  }

  /** Ends the current line: decodes it, cuts it if long, and keeps it if the cap allows. */
  finish(): void {
    const text = this.#render(Buffer.concat(this.#parts), this.#lineBytes);
    this.#parts = [];
    this.#keptBytes = 0;
    this.#lineBytes = 0;
    const added = this.lines.length === 0 ? text.length : text.length + 1;
    if (this.lines.length > 0 && this.#chars + added > this.request.maxOutputChars) {
      this.full = true;
      return;
    }
    this.lines.push(text);
    this.#chars += added;
  }

  #render(bytes: Buffer, lineBytes: number): string {
    const cut = lineBytes > bytes.length;
    if (bytes.includes(0)) throw fileErrors.binary(this.shown);
    let text: string;
    try {
      // A cut line may end inside a character: decoding as a stream holds it back.
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes, { stream: cut });
    } catch {
      throw fileErrors.binary(this.shown);
    }
    if (!cut && text.length <= this.request.maxLineChars) return text;
    let head = text.slice(0, this.request.maxLineChars);
    if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
    return `${head}${lineCutMark(lineBytes - Buffer.byteLength(head))}`;
  }
}
