import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { peakRssOfToolCall } from "@plugboard/test-helpers";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-bash-memory-"));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

const OUTPUT_BYTES = 1024 ** 3;
const MAX_FILE_BYTES = 64 * 1024 * 1024;

test.skipIf(process.platform !== "linux")("a 1 GiB flood keeps the memory of the process flat, its first 64 MiB in the results file", async () => {
  // In a fresh bun process, so that its peak memory (VmHWM) is the tool's alone.
  const { result, peakKb } = await peakRssOfToolCall(join(import.meta.dir, "index.ts"), {
    root: dir,
    options: { timeoutMs: 120000 },
    results: { maxBytes: 50_000, maxFileBytes: MAX_FILE_BYTES },
    tool: "bash",
    args: { command: `head -c ${OUTPUT_BYTES} /dev/zero | tr '\\0' a` },
  });
  const kept = Buffer.byteLength(result.content.replace(/\n… \d+ bytes cut;[^\n]*\n/, "")) - "\nexit code: 0".length;
  const path = ".plugboard/results/direct.txt";
  expect(result.content).toContain(`\n… ${OUTPUT_BYTES - kept} bytes cut; the whole result is in ${path} (read_file with offset/limit pages it)\n`);
  expect(result.content).toEndWith("aaaa\nexit code: 0");
  const dropped = `\n… ${OUTPUT_BYTES - MAX_FILE_BYTES} more bytes dropped: a results file keeps at most ${MAX_FILE_BYTES} bytes (results.maxFileBytes in the config)\n`;
  expect((await stat(join(dir, path))).size).toBe(MAX_FILE_BYTES + Buffer.byteLength(dropped));
  expect(await Bun.file(join(dir, path)).slice(MAX_FILE_BYTES - 2).text()).toBe(`aa${dropped}`);
  expect(peakKb).toBeLessThan(200 * 1024);
  // A correctness bound, not a timing: on a busy machine moving 1 GiB takes longer than bun's default 5 s.
}, 120_000);
