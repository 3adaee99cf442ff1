import { expect, test } from "bun:test";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { escapeFixture } from "./escape-fixture.ts";
import { peakRssOfToolCall } from "./peak-rss.ts";

// A plugin whose folder resolves @plugboard/testing (a devDependency), as every plugin's tests do.
const entry = join(import.meta.dir, "../../../plugins/read-file/src/index.ts");

test.skipIf(process.platform !== "linux")("runs the call in a child process and reports its result and peak memory", async () => {
  await using fixture = await escapeFixture();
  await writeFile(join(fixture.root, "notes.txt"), "one two three");
  const { result, peakKb } = await peakRssOfToolCall(entry, { root: fixture.root, tool: "read_file", args: { path: "notes.txt" } });
  expect(result).toEqual({ content: "one two three", isError: false });
  // A bare bun process peaks at tens of MB; the memory tests bound what a call adds to that.
  expect(peakKb).toBeGreaterThan(1024);
  expect(peakKb).toBeLessThan(1024 * 1024);
});

test("throws with the child's stderr when it fails", async () => {
  await using fixture = await escapeFixture();
  const failing = peakRssOfToolCall(join(fixture.root, "no-such-entry.ts"), { root: fixture.root, tool: "x", args: {} });
  await expect(failing).rejects.toThrow(/the child process exited with code 1; its stderr:\n.*no-such-entry\.ts/s);
});
