/**
 * Run as a child process by the bash benchmark, so that the peak RSS it reports is that
 * of a process doing nothing but the call: `bun bash-child.ts BYTES` runs the real `bash`
 * tool on a command printing BYTES bytes and prints wall time, its own peak RSS and its
 * RSS just before the call.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callTool, toolRuntime } from "./tool-runtime.ts";

/** What the child prints. */
export interface BashSample {
  readonly ms: number;
  readonly peakRssBytes: number;
  /** The process's RSS just before the command ran. */
  readonly startRssBytes: number;
  readonly outputChars: number;
}

/** A command printing exactly `bytes` bytes of 64-byte lines. */
export function printingCommand(bytes: number): string {
  return `yes '${"plugboard bench output line ".padEnd(63, "-")}' | head -c ${bytes}`;
}

async function runTool(bytes: number): Promise<BashSample> {
  const folder = await mkdtemp(join(tmpdir(), "plugboard-bench-bash-"));
  try {
    const runtime = await toolRuntime(folder);
    const startRssBytes = process.memoryUsage().rss;
    const started = performance.now();
    const output = await callTool(runtime, "bash", { command: printingCommand(bytes), timeout_ms: 600000 });
    const ms = performance.now() - started;
    if (!output.endsWith("exit code: 0")) throw new Error(`bash said ${output.slice(-200)}`);
    return { ms, peakRssBytes: await peakRss(), startRssBytes, outputChars: output.length };
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * This process's peak RSS: `VmHWM` from /proc/self/status where there is one. (The
 * `maxRSS` of `resourceUsage()` keeps the parent's peak from before exec, so a child of a
 * big parent would report the parent's size.)
 */
async function peakRss(): Promise<number> {
  const status = await readFile("/proc/self/status", "utf8").catch(() => "");
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
  // resourceUsage().maxRSS is in kilobytes, like VmHWM.
  return Number(match?.[1] ?? process.resourceUsage().maxRSS) * 1024;
}

if (import.meta.main) {
  const bytes = Number(process.argv[2]);
  if (!Number.isInteger(bytes)) throw new Error("usage: bun bash-child.ts BYTES");
  const sample = await runTool(bytes);
  process.stdout.write(`${JSON.stringify(sample)}\n`);
}
