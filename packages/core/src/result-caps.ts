/**
 * A result over `maxBytes` is cut for the model: its head and tail around one line naming the
 * results file (`.plugboard/results/CALL_ID.txt`) that holds it whole. The runtime caps every
 * call's result with it, and the authors' kit its in-process runs, so a plugin's large result
 * reads the same in both; the file itself is made by `results.ts`.
 */
import { lstatSync } from "node:fs";
import { join } from "node:path";
import type { ToolResult } from "./contract.ts";
import { createResultsFile, RESULTS_FOLDER, resultCutLine, resultDroppedLine, type ResultsFile, resultUnsavedLine, ResultsFolderError, type ResultsLimits } from "./results.ts";

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

/**
 * The result the model gets: `result` itself when it fits `file.maxBytes`, otherwise its head
 * and tail around `resultCutLine`, the whole of it saved to `file` (or, when that name was
 * taken meanwhile, the next free one). When it cannot be saved, the line says why. `whole` is
 * what the file keeps when it differs from what the model reads (the result before the
 * runtime took its secrets out).
 */
export async function capResult(result: ToolResult, root: string, file: ResultsFile, whole: string = result.content): Promise<ToolResult> {
  const bytes = Buffer.from(result.content);
  if (bytes.length <= file.maxBytes) return result;
  let saved: string;
  try {
    saved = await saveWhole(root, file, whole === result.content ? bytes : Buffer.from(whole));
  } catch (error) {
    // An operating-system failure (no space, a folder it may not write) or a folder that is not ours: said, not thrown.
    if (!(error instanceof ResultsFolderError) && !(error instanceof Error && "code" in error)) throw error;
    const why = error.message;
    return { content: cutAround(bytes, file.maxBytes, (cut) => resultUnsavedLine(cut, why)), isError: result.isError };
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
