import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-bash-memory-"));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

const OUTPUT_BYTES = 300_000_000;

/** Runs the tool in a fresh bun process, so its peak memory (VmHWM) is the tool's alone. */
const probe = (workspaceDir: string) => `
import { silentLogger, ToolRegistry, ToolRuntime, Workspace } from "@plugboard/core";
import plugin from ${JSON.stringify(join(import.meta.dir, "index.ts"))};
const workspace = await Workspace.open(${JSON.stringify(workspaceDir)});
const options = { timeoutMs: 60000 };
const runtime = new ToolRuntime(new ToolRegistry(plugin.tools(options, { workspace, logger: silentLogger })), { workspace });
const command = "head -c ${OUTPUT_BYTES} /dev/zero | tr '\\\\0' a";
const result = await runtime.execute("bash", JSON.stringify({ command }));
const status = await Bun.file("/proc/self/status").text();
console.log(JSON.stringify({ tail: result.content.slice(-100), peakKb: Number(/VmHWM:\\s+(\\d+)/.exec(status)?.[1]) }));
`;

test.skipIf(process.platform !== "linux")("300 MB of output keeps the memory of the process flat", async () => {
  const child = Bun.spawn([process.execPath, "-e", probe(dir)], { cwd: import.meta.dir, stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  const { tail, peakKb } = JSON.parse(stdout) as { tail: string; peakKb: number };
  expect(tail).toBe(`a\n... (${OUTPUT_BYTES - 50_000} characters cut) ...\n${"a".repeat(25_000)}\nexit code: 0`.slice(-100));
  expect(peakKb).toBeGreaterThan(0);
  expect(peakKb).toBeLessThan(200 * 1024);
});
