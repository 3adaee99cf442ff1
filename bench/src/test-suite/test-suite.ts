/**
 * Suite 17 — the test suite itself: `bun run test` as a contributor and CI run it, on a clean
 * clone of the checkout's HEAD (no turbo cache to replay, no test times kept from an earlier
 * run), with `--force` so that turbo runs every task whatever it finds. Timed from outside:
 * wall time, and the CPU time of turbo and every process it waited for (each package's bun
 * test and what they start). The clone's folder is opened to other users, as a checkout is,
 * so the tests that run as another user run too. Not run with --quick: the whole suite is the
 * measurement, and it takes minutes.
 */
import { chmod } from "node:fs/promises";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { FigureLog } from "../harness/figures.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
import { runProcess } from "../harness/process.ts";
import { withTempDir } from "../harness/temp.ts";

export const TEST_SUITE_GROUP = "bun run test on a clean clone";
/** The goal: the whole suite in at most this many seconds on the two-core machine, idle. */
export const SUITE_GOAL_SECONDS = 180;

/** Clones HEAD, installs, and times `bun run test -- --force` once. */
export async function testSuite(mode: RunMode, log: FigureLog): Promise<void> {
  if (mode.quick) {
    mode.progress("test suite: not run with --quick (the whole suite is the measurement)");
    return;
  }
  await withTempDir("test-suite", async (folder) => {
    await chmod(folder, 0o755);
    const clone = join(folder, "plugboard");
    const head = (await runProcess(["git", "rev-parse", "--short", "HEAD"], { cwd: REPO_ROOT, capture: true })).stdout.trim();
    mode.progress(`test suite: a clean clone of ${head}, bun install --frozen-lockfile`);
    await runProcess(["git", "clone", "--quiet", REPO_ROOT, clone]);
    await runProcess([process.execPath, "install", "--frozen-lockfile"], { cwd: clone });
    mode.progress("test suite: bun run test -- --force (minutes)");
    const loadAtStart = loadavg()[0] ?? Number.NaN;
    const env = { ...process.env, CI: "true", NO_COLOR: "1", FORCE_COLOR: "0", TURBO_TELEMETRY_DISABLED: "1", DO_NOT_TRACK: "1" };
    const child = Bun.spawn([process.execPath, "run", "test", "--", "--force"], { cwd: clone, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const started = performance.now();
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    const wallSeconds = (performance.now() - started) / 1000;
    const cpuSeconds = Number(child.resourceUsage()?.cpuTime.total ?? Number.NaN) / 1_000_000;
    const output = `${stdout}\n${stderr}`;
    const passed = sumOf(output, "pass");
    const failed = sumOf(output, "fail");
    if (child.exitCode !== 0 || failed > 0) {
      // Which tests failed and why, as CI says it (.ci/failures.ts), however long the output above them.
      const saved = join(folder, "test-output.txt");
      await Bun.write(saved, output);
      const failures = await runProcess([process.execPath, join(clone, ".ci/failures.ts"), saved], { cwd: clone, capture: true });
      throw new Error(`bun run test on a clean clone of ${head} failed (exit ${child.exitCode}, ${failed} tests failed): a failing suite is not timed\n${failures.stdout || output.slice(-4000)}`);
    }
    const cli = /apps\/cli: (\d+) test files, (\d+) at a time, in (\d+) s/.exec(output);
    const add = (name: string, value: number, unit: string, note?: string) => log.add({ group: TEST_SUITE_GROUP, name, value, unit, ...(note ? { note } : {}) });
    const wall = add("the whole suite, wall time", wallSeconds, "s", `turbo run test --continue --concurrency=3 --force at ${head}: ${passed.toLocaleString("en")} tests passed, 0 failed`);
    add("the whole suite, CPU time", cpuSeconds, "s", "turbo's and every process it waited for: the packages' bun test and what the tests start");
    if (cli !== null) add("the CLI's tests alone, wall time", Number(cli[3]), "s", `${cli[1]} test files, ${cli[2]} at a time, beside the other packages' tasks`);
    add("1-minute load average, start of the suite", loadAtStart, "");
    add("1-minute load average, end of the suite", loadavg()[0] ?? Number.NaN, "");
    log.ratio(TEST_SUITE_GROUP, `the whole suite / ${SUITE_GOAL_SECONDS} s`, wall, SUITE_GOAL_SECONDS, { op: "<=", limit: 1 });
  });
}

/** The sum of bun test's closing ` N pass` (or ` N fail`) lines, turbo's prefix before them or not. */
function sumOf(output: string, what: "pass" | "fail"): number {
  let sum = 0;
  for (const match of output.matchAll(new RegExp(`^(?:\\S+: )? *(\\d+) ${what}$`, "gm"))) sum += Number(match[1]);
  return sum;
}
