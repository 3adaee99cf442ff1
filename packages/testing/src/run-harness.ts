/**
 * Starting the harness in a child process and collecting what it left: its report, and
 * everything it (that is, the plugin) wrote to stdout.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { HarnessInput, HarnessReport } from "./harness-protocol.ts";

const HARNESS = fileURLToPath(new URL("./harness.ts", import.meta.url));

/** How a harness run ended; `R` is its report (a `ToolListing` in `tools` mode). */
export interface HarnessRun<R = HarnessReport> {
  /** The harness process's id. */
  readonly pid: number;
  /** Missing when the process died before writing it (the plugin exited it, or crashed it). */
  readonly report: R | undefined;
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
}

/** Where the harness runs: its working folder, a folder for its files, and its time limit. */
export interface HarnessPlace {
  readonly cwd: string;
  readonly ioDir: string;
  readonly timeoutMs: number;
}

/** Runs the harness with `input`, killing it after `timeoutMs`. */
export async function runHarness<R = HarnessReport>(input: HarnessInput, { cwd, ioDir, timeoutMs }: HarnessPlace): Promise<HarnessRun<R>> {
  const inputPath = join(ioDir, `${input.mode}-input.json`);
  await writeFile(inputPath, JSON.stringify(input));
  const child = Bun.spawn([process.execPath, HARNESS, inputPath], {
    cwd,
    // Bun's transpiler cache (under $HOME) is the runtime's write, not the plugin's: with it on, a
    // cold cache would count as the plugin writing outside the workspace.
    env: { ...process.env, NO_COLOR: "1", BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0" },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, timeoutMs);
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const exitCode = await child.exited;
  clearTimeout(timer);
  // A program the plugin started may hold the pipes open: read what is there, briefly.
  await Promise.race([Promise.all([stdout.done, stderr.done]), Bun.sleep(500)]);
  const report = await readFile(input.reportPath, "utf8").then(
    (text) => JSON.parse(text) as R,
    () => undefined,
  );
  return { pid: child.pid, report, stdout: stdout.text(), stderr: stderr.text(), exitCode: timedOut ? null : exitCode, timedOut };
}

function collect(stream: ReadableStream<Uint8Array>) {
  const decoder = new TextDecoder();
  let text = "";
  const done = (async () => {
    for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  })().catch(() => {});
  return { done, text: () => text };
}
