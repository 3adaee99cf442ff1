/**
 * Suite 10 — the sandbox: what confinement costs. What it adds to each file operation in a
 * confined process (file-operations.ts); one host's start taken apart (start-steps.ts); the
 * second start of an `npx -y` MCP server (npx-server.ts). Then per call: `read_file` on a
 * one-line file with the plugin in the app's process (`"sandbox": "off"`) and in its
 * confined host (MCP over stdio to a process in its own view and namespaces). Start-up:
 * building an app whose five first-party plugins run in five hosts started in parallel,
 * against the same app with the sandbox off, and one host alone.
 */
import { realpathSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type App, buildApp, loadConfig } from "@plugboard/bootstrap";
import type { FigureLog } from "../harness/figures.ts";
import { timeRuns, timeRunsWithSetup, timingFigure } from "../harness/measure.ts";
import type { RunMode } from "../harness/mode.ts";
import { fileOperations } from "./file-operations.ts";
import { SANDBOX_GROUP } from "./groups.ts";
import { npxServer } from "./npx-server.ts";
import { startSteps } from "./start-steps.ts";

const PLUGINS = fileURLToPath(new URL("../../../plugins", import.meta.url));
const FIVE = [
  { path: join(PLUGINS, "bash"), permissions: ["process.spawn", "fs.read", "fs.write"] },
  { path: join(PLUGINS, "read-file"), permissions: ["fs.read"] },
  { path: join(PLUGINS, "write-file"), permissions: ["fs.write"] },
  { path: join(PLUGINS, "edit-file"), permissions: ["fs.read", "fs.write"] },
  { path: join(PLUGINS, "glob"), permissions: ["fs.read"] },
];
const ARGS = '{"path":"notes.txt"}';

/** Measures per-call overhead and host start-up. */
export async function sandbox(mode: RunMode, log: FigureLog): Promise<void> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const dir = await mkdtemp(join(tmpdir(), "plugboard-bench-sandbox-"));
  const apps: App[] = [];
  // Hosts started and listed at every build (`freshHosts`), as on the first start after a
  // plugin changed; the row "tools from the listing cache" builds without it.
  const app = async (name: string, sandboxMode: "auto" | "off", plugins: readonly object[], fresh = true) => {
    const path = join(dir, `${name}.json`);
    await writeFile(path, JSON.stringify({ workspace: ".", sandbox: sandboxMode, plugins }));
    const built = await buildApp(await loadConfig(path, { env: {}, cwd: dir }), { freshHosts: fresh });
    apps.push(built);
    return built;
  };
  try {
    await writeFile(join(dir, "notes.txt"), "one line\n");
    await fileOperations(mode, log, realpathSync(dir));
    await startSteps(mode, log, realpathSync(dir));
    await npxServer(mode, log);
    const calls = { samples: mode.quick ? 200 : 2000, warmup: mode.quick ? 50 : 200 };
    const us = (name: string, timing: Parameters<typeof timingFigure>[2], note?: string) =>
      log.add(timingFigure(SANDBOX_GROUP, name, timing, "µs/call", 1e3, note));
    mode.progress("sandbox: read_file in process, then confined");
    const readOnly = [FIVE[1] ?? {}];
    const inProcess = await app("in-process", "off", readOnly);
    const confined = await app("confined", "auto", readOnly);
    if (!confined.sandbox.mechanism) throw new Error(`the sandbox is not available here: ${confined.sandbox.summary}`);
    for (const built of [inProcess, confined]) {
      const result = await built.runtime.execute("read_file", ARGS);
      if (result.content !== "one line") throw new Error(`read_file answered ${result.content}`);
    }
    const floor = us("read_file, plugin in the app's process", await timeRuns(() => inProcess.runtime.execute("read_file", ARGS), calls));
    const hosted = us(
      "read_file, plugin in its confined host",
      await timeRuns(() => confined.runtime.execute("read_file", ARGS), calls),
      "MCP over stdio to a host in its own view, under Landlock and seccomp, in its own user, PID, mount, IPC and network namespaces",
    );
    log.add({ group: SANDBOX_GROUP, name: "overhead of confinement per call (difference of medians)", value: hosted - floor, unit: "µs/call" });

    mode.progress("sandbox: start-up of five hosts in parallel, one host, and the same app unconfined");
    const starts = { samples: mode.quick ? 3 : 9, warmup: 1 };
    const startOf = (name: string, sandboxMode: "auto" | "off", plugins: readonly object[], fresh = true) =>
      timeRunsWithSetup(
        () => undefined,
        async () => {
          const built = await app(name, sandboxMode, plugins, fresh);
          await built.close();
          apps.pop();
        },
        starts,
      );
    log.add(timingFigure(SANDBOX_GROUP, "buildApp, five first-party plugins confined (five hosts in parallel)", await startOf("five-confined", "auto", FIVE), "ms", 1e6, "from config to a runtime whose five tools are listed; includes closing the hosts"));
    log.add(timingFigure(SANDBOX_GROUP, "buildApp, one plugin confined (read_file's host)", await startOf("one-confined", "auto", readOnly), "ms", 1e6));
    log.add(timingFigure(SANDBOX_GROUP, "buildApp, five first-party plugins in process", await startOf("five-off", "off", FIVE), "ms", 1e6));
    log.add(
      timingFigure(
        SANDBOX_GROUP,
        "buildApp, five plugins confined, tools from the listing cache",
        await startOf("five-confined", "auto", FIVE, false),
        "ms",
        1e6,
        "what each host listed is kept: no host starts until a call",
      ),
    );
    // The machine is shared: the load during these rows says how far to trust them.
    log.add({ group: SANDBOX_GROUP, name: "1-minute load average, start of the suite", value: loadAtStart, unit: "" });
    log.add({ group: SANDBOX_GROUP, name: "1-minute load average, end of the suite", value: loadavg()[0] ?? Number.NaN, unit: "" });
  } finally {
    await Promise.all(apps.map((built) => built.close()));
    await rm(dir, { recursive: true, force: true });
  }
}
