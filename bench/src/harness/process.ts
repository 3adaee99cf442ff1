/**
 * Running a child process for a measurement: whole-process wall time, and the CPU time the
 * child used (user + system, from its resource usage), which a loaded machine inflates less
 * than wall time. Peak memory is not taken from `resourceUsage().maxRSS`: on Linux a
 * process keeps the peak of its parent's image from before exec, so a child of the (big)
 * bench process would report the bench's size. Children that report memory read their own
 * `VmHWM` instead.
 */

/** How one process run went. */
export interface ProcessRun {
  /** When the child was spawned, in ms since the epoch (as `performance.timeOrigin + performance.now()`). */
  readonly startedAt: number;
  readonly wallMs: number;
  /** User + system CPU time of the child. */
  readonly cpuMs: number;
  /** Captured only with `capture: true`. */
  readonly stdout: string;
  readonly stderr: string;
}

/** Where and how to run the command. */
export interface ProcessOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string | undefined>;
  /** Keep stdout (for children that report JSON); otherwise it goes to /dev/null. */
  readonly capture?: boolean;
}

/** Runs `command` to its end; throws with its stderr when it exits non-zero. */
export async function runProcess(command: readonly string[], options: ProcessOptions = {}): Promise<ProcessRun> {
  const started = performance.now();
  const child = Bun.spawn([...command], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdin: "ignore",
    stdout: options.capture ? "pipe" : "ignore",
    stderr: "pipe",
  });
  const [stdout, stderr] = await Promise.all([
    options.capture ? new Response(child.stdout as ReadableStream<Uint8Array>).text() : Promise.resolve(""),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const wallMs = performance.now() - started;
  if (child.exitCode !== 0) {
    throw new Error(`${command.join(" ")} exited with ${child.exitCode ?? child.signalCode}: ${stderr.trim()}`);
  }
  const cpuMs = Number(child.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1000;
  return { startedAt: performance.timeOrigin + started, wallMs, cpuMs, stdout, stderr };
}
