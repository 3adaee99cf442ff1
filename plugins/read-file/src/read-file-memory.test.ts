import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { peakRssOfToolCall } from "@plugboard/test-helpers";

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

test.skipIf(process.platform !== "linux")("two lines deep in a 100 MB file cost only what they hold", async () => {
  expect(Bun.file(join(dir, "huge.txt")).size).toBeGreaterThan(95_000_000);
  // In a fresh bun process, so that its peak memory (VmHWM) is the read's alone.
  const { result, peakKb } = await peakRssOfToolCall(join(import.meta.dir, "index.ts"), {
    root: dir,
    tool: "read_file",
    args: { path: "huge.txt", offset: 1000000, limit: 2 },
  });
  expect(result.content).toBe(`line 1000000 ${PAD}\nline 1000001 ${PAD}\n... (199999 more lines)`);
  // A fresh bun process peaks near 50 MB; holding the file would add 95 MB or more.
  expect(peakKb).toBeLessThan(90 * 1024);
});
