/**
 * `bun run test` for the CLI: its test files in two `bun test` processes at once. Most of these
 * tests wait on real processes (the CLI, plugin hosts, servers), so two at a time finish in
 * about half the time on two cores. Each process's output is written whole when it ends, so
 * that its lines (and its closing counts) never interleave with the other's. With arguments
 * (`bun run test -t NAME`, a file), it is one `bun test` with them, as usual.
 */
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const SHARDS = 2;

const args = process.argv.slice(2);
if (args.length > 0) process.exit(await Bun.spawn([process.execPath, "test", ...args], { cwd: ROOT, stdio: ["inherit", "inherit", "inherit"] }).exited);

// What bun test finds on its own: every *.test.ts outside node_modules (the plugin template's tests too).
const files = [...new Bun.Glob("**/*.test.ts").scanSync({ cwd: ROOT })].filter((file) => !file.split("/").includes("node_modules")).sort();
// Dealt out in turn: neighbours in the sorted list are often of a kind (mcp-*, plugin-*), so each shard gets some of each.
const shards = Array.from({ length: SHARDS }, (_, shard) => files.filter((_, index) => index % SHARDS === shard).map((file) => `./${file}`));
const runs = shards.map(async (shard) => {
  const child = Bun.spawn([process.execPath, "test", ...shard], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  // bun test writes its results to stderr; whole, in one piece per shard.
  process.stdout.write(stdout);
  process.stderr.write(stderr);
  return code;
});
const codes = await Promise.all(runs);
process.exit(codes.find((code) => code !== 0) ?? 0);
