/**
 * Suite 10 — the sandbox: what confinement costs. What it adds to each file operation in a
 * confined process (file-operations.ts); one host's start taken apart (start-steps.ts); the
 * second start of an `npx -y` MCP server (npx-server.ts); a request through a narrowed
 * network's egress proxy against the same request made directly (egress.ts). Then per call: `read_file` on a
 * one-line file with the plugin in the app's process (`"sandbox": "off"`) and in its
 * confined host (plugboard's host protocol, JSON lines over stdio, to a process in its own
 * view and namespaces). Start-up of the hosts (host-starts.ts): the shipped config's five
 * plugins in the four hosts they share, the same five as path entries in five, one host
 * alone, and the app with the sandbox off. The real CLI with the shipped config, confined
 * and with the sandbox off: its process tree's PSS after a turn that calls each tool
 * (cli-memory.ts), and a whole `plugboard call read_file` (first-call.ts).
 */
import { realpathSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FigureLog } from "../harness/figures.ts";
import { timeRuns, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { withTempDir } from "../harness/temp.ts";
import { type AppBuilds, appBuilds } from "./app-builds.ts";
import { egress } from "./egress.ts";
import { cliMemory } from "./cli-memory.ts";
import { fileOperations } from "./file-operations.ts";
import { firstCall } from "./first-call.ts";
import { SANDBOX_GROUP } from "./groups.ts";
import { hostStarts } from "./host-starts.ts";
import { npxServer } from "./npx-server.ts";
import { pins } from "./pins.ts";
import { startSteps } from "./start-steps.ts";

const PLUGINS = fileURLToPath(new URL("../../../plugins", import.meta.url));
/** The five first-party plugins as path entries: a host each. */
const FIVE = [
  { path: join(PLUGINS, "bash"), permissions: ["process.spawn", "fs.read", "fs.write"] },
  { path: join(PLUGINS, "read-file"), permissions: ["fs.read"] },
  { path: join(PLUGINS, "write-file"), permissions: ["fs.write"] },
  { path: join(PLUGINS, "edit-file"), permissions: ["fs.read", "fs.write"] },
  { path: join(PLUGINS, "glob"), permissions: ["fs.read"] },
];
const ARGS = '{"path":"notes.txt"}';

/** Measures per-call overhead, host start-up, and the CLI's memory and first call. */
export async function sandbox(mode: RunMode, log: FigureLog): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  await withTempDir("sandbox", async (dir) => {
    // The apps built here keep their listing cache, host programs and writable spans in the temp folder too.
    const builds = appBuilds(dir, { ...process.env, XDG_CACHE_HOME: join(dir, "cache"), XDG_STATE_HOME: join(dir, "state") });
    try {
      await writeFile(join(dir, "notes.txt"), "one line\n");
      await fileOperations(mode, log, realpathSync(dir));
      await startSteps(mode, log, realpathSync(dir));
      await npxServer(mode, log);
      await egress(mode, log);
      await perCall(mode, log, builds);
      await hostStarts(mode, log, builds, FIVE);
      await pins(mode, log, realpathSync(dir), join(dir, "cache"));
    } finally {
      await builds.closeAll();
    }
  });
  await cliMemory(mode, log);
  await firstCall(mode, log);
  // The machine is shared: the load during these rows says how far to trust them.
  log.add({ group: SANDBOX_GROUP, name: "1-minute load average, start of the suite", value: loadAtStart, unit: "" });
  log.add({ group: SANDBOX_GROUP, name: "1-minute load average, end of the suite", value: loadavg()[0] ?? Number.NaN, unit: "" });
}

/** read_file's calls in the app's process and in its confined host. */
async function perCall(mode: RunMode, log: FigureLog, builds: AppBuilds): Promise<void> {
  mode.progress("sandbox: read_file in process, then confined");
  const calls = { samples: mode.quick ? 200 : 2000, warmup: mode.quick ? 50 : 200 };
  const us = (name: string, timing: Parameters<typeof timingFigure>[2], note?: string) => log.add(timingFigure(SANDBOX_GROUP, name, timing, "µs/call", 1e3, note));
  const readOnly = FIVE.slice(1, 2);
  const inProcess = await builds.build("in-process", "off", readOnly, { freshHosts: true });
  const confined = await builds.build("confined", "auto", readOnly, { freshHosts: true });
  if (!confined.sandbox.mechanism) throw new Error(`the sandbox is not available here: ${confined.sandbox.summary}`);
  for (const built of [inProcess, confined]) {
    const result = await built.runtime.execute("read_file", ARGS);
    if (result.content !== "one line") throw new Error(`read_file answered ${result.content}`);
  }
  const floor = us("read_file, plugin in the app's process", await timeRuns(() => inProcess.runtime.execute("read_file", ARGS), calls));
  const hosted = us(
    "read_file, plugin in its confined host",
    await timeRuns(() => confined.runtime.execute("read_file", ARGS), calls),
    "plugboard's host protocol (a JSON line each way over stdio) to a host in its own view, under Landlock and seccomp, in its own user, PID, mount, IPC and network namespaces",
  );
  log.add({ group: SANDBOX_GROUP, name: "overhead of confinement per call (difference of medians)", value: hosted - floor, unit: "µs/call" });
  await Promise.all([builds.close(inProcess), builds.close(confined)]);
}
