import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { peakRssOfToolCall } from "@plugboard/test-helpers";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-bash-memory-"));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

const OUTPUT_BYTES = 300_000_000;

test.skipIf(process.platform !== "linux")("300 MB of output keeps the memory of the process flat", async () => {
  // In a fresh bun process, so that its peak memory (VmHWM) is the tool's alone.
  const { result, peakKb } = await peakRssOfToolCall(join(import.meta.dir, "index.ts"), {
    root: dir,
    options: { timeoutMs: 60000 },
    tool: "bash",
    args: { command: `head -c ${OUTPUT_BYTES} /dev/zero | tr '\\0' a` },
  });
  const tail = `a\n... (${OUTPUT_BYTES - 50_000} characters cut) ...\n${"a".repeat(25_000)}\nexit code: 0`.slice(-100);
  expect(result.content.slice(-100)).toBe(tail);
  expect(peakKb).toBeLessThan(200 * 1024);
  // A correctness bound, not a timing: on a busy machine moving 300 MB takes longer than bun's default 5 s.
}, 60_000);
