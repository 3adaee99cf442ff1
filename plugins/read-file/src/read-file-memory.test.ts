import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

let dir: string;
const LINES = 1_200_000;
const PAD = "x".repeat(70);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-read-file-memory-"));
  const writer = Bun.file(join(dir, "huge.txt")).writer();
  for (let start = 1; start <= LINES; start += 10_000) {
    const block = Array.from({ length: 10_000 }, (_, i) => `line ${start + i} ${PAD}\n`).join("");
    writer.write(block);
  }
  await writer.end();
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** Reads two lines deep in the file in a fresh bun process, so its peak memory is the read's alone. */
const probe = (workspaceDir: string) => `
import { silentLogger, ToolRegistry, ToolRuntime, Workspace } from "@plugboard/core";
import plugin from ${JSON.stringify(join(import.meta.dir, "index.ts"))};
const workspace = await Workspace.open(${JSON.stringify(workspaceDir)});
const runtime = new ToolRuntime(new ToolRegistry(plugin.tools({}, { workspace, logger: silentLogger })), { workspace });
const result = await runtime.execute("read_file", JSON.stringify({ path: "huge.txt", offset: 1000000, limit: 2 }));
const status = await Bun.file("/proc/self/status").text();
console.log(JSON.stringify({ content: result.content, peakKb: Number(/VmHWM:\\s+(\\d+)/.exec(status)?.[1]) }));
`;

test.skipIf(process.platform !== "linux")("two lines deep in a 100 MB file cost only what they hold", async () => {
  expect(Bun.file(join(dir, "huge.txt")).size).toBeGreaterThan(95_000_000);
  const child = Bun.spawn([process.execPath, "-e", probe(dir)], { cwd: import.meta.dir, stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  const { content, peakKb } = JSON.parse(stdout) as { content: string; peakKb: number };
  expect(content).toBe(`line 1000000 ${PAD}\nline 1000001 ${PAD}\n... (199999 more lines)`);
  expect(peakKb).toBeGreaterThan(0);
  // A fresh bun process peaks near 50 MB; holding the file would add 95 MB or more.
  expect(peakKb).toBeLessThan(90 * 1024);
});
