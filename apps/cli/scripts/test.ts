/**
 * `bun run test` for the CLI: each test file in a `bun test` process of its own, two at a time.
 * Most of these tests wait on real processes (the CLI, plugin hosts, servers), so two at a time
 * keep both cores of a two-core machine busy. The files are taken from one queue, the largest
 * first (the longest to run, near enough), so that no file starts late and leaves a core idle at
 * the end. Each file's output is written whole when it ends, so that its lines and closing counts
 * never interleave with another's; a last line adds them up and names the files that failed.
 * The bundle the tests run (see test/helpers.ts) is built first when it is stale, once.
 * With arguments (`bun run test -t NAME`, a file), it is one `bun test` with them, as usual.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { ensureBundle } from "../test/helpers.ts";

const ROOT = join(import.meta.dir, "..");
const WORKERS = 2;

const args = process.argv.slice(2);
if (args.length > 0) process.exit(await Bun.spawn([process.execPath, "test", ...args], { cwd: ROOT, stdio: ["inherit", "inherit", "inherit"] }).exited);

// What bun test finds on its own: every *.test.ts outside node_modules (the plugin template's tests too).
const files = [...new Bun.Glob("**/*.test.ts").scanSync({ cwd: ROOT })]
  .filter((file) => !file.split("/").includes("node_modules"))
  .sort((a, b) => statSync(join(ROOT, b)).size - statSync(join(ROOT, a)).size || a.localeCompare(b));

await ensureBundle();
const started = performance.now();
const failed: string[] = [];
const counts = { pass: 0, fail: 0 };
const queue = [...files];

async function worker(): Promise<void> {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const child = Bun.spawn([process.execPath, "test", `./${file}`], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    // bun test writes its results to stderr; whole, in one piece per file.
    process.stdout.write(stdout);
    process.stderr.write(stderr);
    counts.pass += count(stderr, "pass");
    counts.fail += count(stderr, "fail");
    if (code !== 0) failed.push(`${file} (exit ${code})`);
  }
}

/** The number on bun test's closing ` N pass` or ` N fail` line. */
function count(output: string, what: "pass" | "fail"): number {
  return Number(new RegExp(`^ *(\\d+) ${what}$`, "m").exec(output)?.[1] ?? 0);
}

await Promise.all(Array.from({ length: WORKERS }, worker));
const seconds = Math.round((performance.now() - started) / 1000);
const outcome = failed.length === 0 ? "all passed" : `failed: ${failed.join(", ")}`;
process.stderr.write(`\napps/cli: ${files.length} test files, ${WORKERS} at a time, in ${seconds} s: ${counts.pass} tests passed, ${counts.fail} failed; ${outcome}\n`);
process.exit(failed.length === 0 ? 0 : 1);
