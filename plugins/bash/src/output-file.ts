/**
 * The whole output of a command whose output is cut, written to its results file (the call's
 * `ctx.results`) as it streams: each stream is held in memory up to a threshold, then written
 * through, so memory stays flat however much a command prints. The file reads as the result
 * would have uncut — stdout, then `[stderr]` and stderr — up to `maxFileBytes`, then a line
 * saying how many bytes were dropped.
 */
import { unlink } from "node:fs/promises";
import { join } from "node:path";
import { createResultsFile, resultDroppedLine, type ResultsFile } from "@plugboard/core";

type Created = Awaited<ReturnType<typeof createResultsFile>>;
type Handle = Created["handle"];

/** The bytes both streams may still write to the file. */
interface Budget {
  left: number;
}

/** One stream: in memory up to `threshold` bytes, then in its file. */
export class Spill {
  total = 0;
  dropped = 0;
  lastByte: number | undefined;
  readonly #threshold: number;
  readonly #open: () => Promise<Created>;
  readonly #budget: Budget;
  #held: Uint8Array[] = [];
  #heldBytes = 0;
  #file: Handle | undefined;
  /** Where the file is, once made. */
  path: string | undefined;
  /** The file could not be made: from then on nothing is written. */
  #lost = false;

  constructor(threshold: number, open: () => Promise<Created>, budget: Budget) {
    this.#threshold = threshold;
    this.#open = open;
    this.#budget = budget;
  }

  get spilled(): Handle | undefined {
    return this.#file;
  }

  get lost(): boolean {
    return this.#lost;
  }

  /** Adds the next bytes of the stream; resolves once they are held or written. */
  async push(bytes: Uint8Array): Promise<void> {
    this.total += bytes.length;
    if (bytes.length > 0) this.lastByte = bytes[bytes.length - 1];
    if (this.#lost) return;
    if (this.#file === undefined && this.#heldBytes + bytes.length <= this.#threshold) {
      this.#held.push(bytes);
      this.#heldBytes += bytes.length;
      return;
    }
    if (this.#file === undefined) {
      try {
        const created = await this.#open();
        this.#file = created.handle;
        this.path = created.path;
      } catch {
        // A name taken (something planted there) or a folder that is not ours: the cut is then only counted.
        this.#lost = true;
        this.#held = [];
        return;
      }
      await this.writeHeld(this.#file);
    }
    await write(this.#file, bytes, this.#budget, this);
  }

  /** Writes what is held in memory to `file`. */
  async writeHeld(file: Handle): Promise<void> {
    for (const held of this.#held) await write(file, held, this.#budget, this);
    this.#held = [];
    this.#heldBytes = 0;
  }
}

/** Both streams of one command, and the results file they go to. */
export class OutputFile {
  readonly stdout: Spill;
  readonly stderr: Spill;
  readonly #root: string;
  readonly #results: ResultsFile;

  /** `threshold`: bytes of each stream held in memory before it is written through. */
  constructor(root: string, results: ResultsFile, threshold: number) {
    this.#root = root;
    this.#results = results;
    const budget = { left: results.maxFileBytes };
    this.stdout = new Spill(threshold, () => createResultsFile(root, results.path), budget);
    // A call's file name never has a "." before its ".txt", so this is no other call's file.
    this.stderr = new Spill(threshold, () => createResultsFile(root, results.path.replace(/\.txt$/, ".stderr.part")), budget);
  }

  /**
   * Completes the file when the output shown was `cut`, and returns its path (undefined when
   * it could not be made); otherwise removes what was written and returns undefined.
   */
  async finish(cut: boolean): Promise<string | undefined> {
    const { stdout, stderr } = this;
    const part = stderr.spilled;
    try {
      if (!cut || stdout.lost || stderr.lost) {
        await stdout.spilled?.close();
        if (stdout.path !== undefined) await this.#remove(stdout.path);
        return undefined;
      }
      let main: Created;
      try {
        main = stdout.spilled === undefined ? await createResultsFile(this.#root, this.#results.path) : { handle: stdout.spilled, path: stdout.path ?? "" };
      } catch {
        return undefined;
      }
      const file = main.handle;
      try {
        if (stdout.spilled === undefined) await stdout.writeHeld(file);
        if (stdout.dropped > 0) await file.write(`\n${resultDroppedLine(stdout.dropped, this.#results.maxFileBytes)}\n`);
        if (stderr.total > 0) {
          const newline = stdout.total > 0 && stdout.lastByte !== 0x0a && stdout.dropped === 0 ? "\n" : "";
          await file.write(`${newline}[stderr]\n`);
          if (part === undefined) await stderr.writeHeld(file);
          else await copyInto(file, join(this.#root, stderr.path ?? ""));
          if (stderr.dropped > 0) await file.write(`\n${resultDroppedLine(stderr.dropped, this.#results.maxFileBytes)}\n`);
        }
      } finally {
        await file.close();
      }
      return main.path;
    } finally {
      // stderr's own file is only ever a part of the whole.
      await part?.close().catch(() => undefined);
      if (stderr.path !== undefined) await this.#remove(stderr.path);
    }
  }

  async #remove(path: string): Promise<void> {
    await unlink(join(this.#root, path)).catch(() => undefined);
  }
}

/** Writes what `budget` leaves room for, counting the rest as dropped. */
async function write(file: Handle, bytes: Uint8Array, budget: Budget, spill: Spill): Promise<void> {
  const kept = bytes.length <= budget.left ? bytes : bytes.subarray(0, budget.left);
  budget.left -= kept.length;
  spill.dropped += bytes.length - kept.length;
  if (kept.length > 0) await file.write(kept);
}

/** Appends the file at `path` to `file`, a chunk at a time. */
async function copyInto(file: Handle, path: string): Promise<void> {
  for await (const chunk of Bun.file(path).stream()) await file.write(chunk);
}
