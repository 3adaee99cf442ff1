/**
 * `bun run test` for the CLI: each test file in a `bun test` process of its own, twice as many at
 * a time as the machine has cores. Most of these tests wait on real processes (the CLI, plugin
 * hosts, servers, sandboxes) more than they compute, so one file per core leaves the cores idle
 * while those start; two per core keep them busy. The files are taken from one queue, the
 * longest first, so that no long file starts late and runs alone at the end: the longest as the
 * last full run measured them (kept under node_modules/.cache, so a clean clone has none; a file
 * it did not measure goes first), else the largest first, near enough (the few small files that
 * run long are named, and go first). Each file's output is written whole when it ends, so that
 * its lines and closing counts never interleave with another's; a last line adds them up and
 * names the slowest files and the files that failed. Each file's temp folders go under one folder
 * of its own (its TMPDIR), removed when it ends: bun test fires no `exit` event, so what a file
 * would remove at exit is removed here.
 * The bundle the tests run (see test/helpers.ts) is built first when it is stale, once.
 * With arguments (`bun run test -t NAME`, a file), it is one `bun test` with them, as usual.
 * Either way a test or hook that sets no timeout of its own gets HANG_MS, not bun's 5 s: these
 * tests start real processes, four files at a time beside the other packages' tests, and a start
 * that takes half a second alone can take several seconds then. The bound is there to end a hang,
 * not to time anything.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ensureBundle } from "../test/helpers.ts";

const ROOT = join(import.meta.dir, "..");
const WORKERS = 2 * availableParallelism();
/** Bun test's `--timeout` for every test and hook without its own. */
const HANG_MS = 30_000;
/** Small files that run long (thousands of fuzzed calls; npm downloads): first when no run has measured them. */
const LONGER_THAN_THEIR_SIZE = ["src/tools-fuzz.test.ts", "test/mcp-npx.test.ts", "test/mcp-npx-network.test.ts"];
/** Each file's seconds in the last full run, which order the next. */
const TIMES = join(ROOT, "node_modules/.cache/plugboard-cli-test-times.json");
/** Each file's CPU seconds in the last full run, beside them: what to make cheaper first. */
const CPU = join(ROOT, "node_modules/.cache/plugboard-cli-test-cpu.json");

const args = process.argv.slice(2);
if (args.length > 0) process.exit(await Bun.spawn([process.execPath, "test", `--timeout=${HANG_MS}`, ...args], { cwd: ROOT, stdio: ["inherit", "inherit", "inherit"] }).exited);

// What bun test finds on its own: every *.test.ts outside node_modules (the plugin template's tests too).
const found = [...new Bun.Glob("**/*.test.ts").scanSync({ cwd: ROOT })].filter((file) => !file.split("/").includes("node_modules"));
const files = found.sort(longestFirst(lastTimes()));

await ensureBundle();
const started = performance.now();
const failed: string[] = [];
const counts = { pass: 0, fail: 0 };
const seconds: Record<string, number> = {};
/** Each file's CPU seconds: its bun test process's and those of the processes it waited for (the CLIs, hosts and servers it started). */
const cpu: Record<string, number> = {};
const queue = [...files];

async function worker(): Promise<void> {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const start = performance.now();
    const temp = mkdtempSync(join(tmpdir(), "plugboard-cli-test-"));
    chmodSync(temp, 0o1777); // as the system's temp folder is: tests run some processes as another user
    const child = Bun.spawn([process.execPath, "test", `--timeout=${HANG_MS}`, `./${file}`], { cwd: ROOT, env: { ...process.env, TMPDIR: temp }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    try {
      rmSync(temp, { recursive: true, force: true });
    } catch (error) {
      process.stderr.write(`${file}: its temp folder ${temp} was not removed: ${String(error)}\n`);
    }
    seconds[file] = Math.round((performance.now() - start) / 100) / 10;
    // A bigint at run time, whatever the types say.
    cpu[file] = Math.round(Number(child.resourceUsage()?.cpuTime.total ?? 0) / 100_000) / 10;
    // bun test writes its results to stderr; whole, in one piece per file.
    process.stdout.write(stdout);
    process.stderr.write(stderr);
    counts.pass += count(stderr, "pass");
    counts.fail += count(stderr, "fail");
    if (code !== 0) failed.push(`${file} (exit ${code})`);
  }
}

/** The order to start files in: by the seconds the last run measured (a file it did not measure first), else by size (the few that run longer than their size first). */
function longestFirst(times: Record<string, number>): (a: string, b: string) => number {
  const known = Object.keys(times).length > 0;
  const bySize = (file: string) => (LONGER_THAN_THEIR_SIZE.includes(file) ? Number.POSITIVE_INFINITY : statSync(join(ROOT, file)).size);
  const weight = (file: string) => (known ? (times[file] ?? Number.POSITIVE_INFINITY) : bySize(file));
  return (a, b) => weight(b) - weight(a) || a.localeCompare(b);
}

/** What the last full run measured, or nothing (none yet, or unreadable: then the sizes order the files). */
function lastTimes(): Record<string, number> {
  try {
    const times: unknown = JSON.parse(readFileSync(TIMES, "utf8"));
    if (typeof times !== "object" || times === null) return {};
    return Object.fromEntries(Object.entries(times).filter((entry): entry is [string, number] => typeof entry[1] === "number"));
  } catch {
    return {};
  }
}

/** The number on bun test's closing ` N pass` or ` N fail` line. */
function count(output: string, what: "pass" | "fail"): number {
  return Number(new RegExp(`^ *(\\d+) ${what}$`, "m").exec(output)?.[1] ?? 0);
}

await Promise.all(Array.from({ length: WORKERS }, worker));
mkdirSync(dirname(TIMES), { recursive: true });
writeFileSync(TIMES, `${JSON.stringify(seconds, null, 1)}\n`);
writeFileSync(CPU, `${JSON.stringify(cpu, null, 1)}\n`);
const total = Math.round((performance.now() - started) / 1000);
const slowest = Object.entries(seconds)
  .sort(([, a], [, b]) => b - a)
  .slice(0, 5)
  .map(([file, time]) => `${file} ${time} s`);
const busiest = Object.entries(cpu)
  .sort(([, a], [, b]) => b - a)
  .slice(0, 5)
  .map(([file, time]) => `${file} ${time} s`);
const cpuTotal = Math.round(Object.values(cpu).reduce((sum, time) => sum + time, 0));
const outcome = failed.length === 0 ? "all passed" : `failed: ${failed.join(", ")}`;
process.stderr.write(`\napps/cli: ${files.length} test files, ${WORKERS} at a time, in ${total} s (slowest: ${slowest.join(", ")}), ${cpuTotal} s of CPU (most: ${busiest.join(", ")}): ${counts.pass} tests passed, ${counts.fail} failed; ${outcome}\n`);
process.exit(failed.length === 0 ? 0 : 1);
