import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resultCutLine } from "@plugboard/core";
import { pluginRuntime } from "@plugboard/testing";
import plugin from "./index.ts";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-bash-results-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const RESULTS = { maxBytes: 50_000, maxFileBytes: 64 * 1024 * 1024 };

const bash = async (command: string, callId = "call_1", results = RESULTS) =>
  (await pluginRuntime(plugin, { root: dir, results })).call("bash", { command }, { callId });

/** `seq 1 N`'s output, as the command prints it. */
const seq = (count: number) => `${Array.from({ length: count }, (_, i) => i + 1).join("\n")}\n`;

/** The text around the one cut line of a stream: what comes before it and after it, and the line. */
function split(content: string): { head: string; line: string; tail: string } {
  const at = content.indexOf("\n… ");
  const end = content.indexOf("\n", at + 1);
  return { head: content.slice(0, at), line: content.slice(at + 1, end), tail: content.slice(end + 1) };
}

describe("bash output over the cap goes to the call's results file as it streams", () => {
  test("200,000 bytes: the model gets head + tail + the file's name; the file holds every byte", async () => {
    const printed = seq(40_000).slice(0, 200_000);
    const { content, isError } = await bash("seq 1 40000 | head -c 200000");
    expect(isError).toBe(false);
    const path = ".plugboard/results/call_1.txt";
    expect(await readFile(join(dir, path), "utf8")).toBe(printed);
    const { head, line, tail } = split(content);
    expect(tail).toEndWith("\nexit code: 0");
    const kept = tail.slice(0, -"\nexit code: 0".length);
    expect(printed.startsWith(head) && printed.endsWith(kept)).toBe(true);
    expect(line).toBe(resultCutLine(200_000 - head.length - kept.length, path));
    // Within results.maxBytes, so the runtime did not cut it again into a second file.
    expect(Buffer.byteLength(content)).toBeLessThanOrEqual(RESULTS.maxBytes);
    expect((await readdir(join(dir, ".plugboard/results"))).sort()).toEqual([".gitignore", "call_1.txt"]);
  });

  test("stdout and stderr both cut: one file, stdout then [stderr] then stderr; each cut line names it", async () => {
    const { content } = await bash("seq 1 30000; seq 1 30000 >&2");
    expect(await readFile(join(dir, ".plugboard/results/call_1.txt"), "utf8")).toBe(`${seq(30_000)}[stderr]\n${seq(30_000)}`);
    expect(content.match(/the whole result is in \.plugboard\/results\/call_1\.txt/g)?.length).toBe(2);
    expect(content).toContain("\n[stderr]\n1\n2\n");
    expect((await readdir(join(dir, ".plugboard/results"))).sort()).toEqual([".gitignore", "call_1.txt"]);
  });

  test("beyond results.maxFileBytes the file says how many bytes it dropped", async () => {
    await bash("seq 1 100000", "c", { maxBytes: 2000, maxFileBytes: 10_000 });
    const file = await readFile(join(dir, ".plugboard/results/c.txt"), "utf8");
    expect(file).toBe(`${seq(100_000).slice(0, 10_000)}\n… ${seq(100_000).length - 10_000} more bytes dropped: a results file keeps at most 10000 bytes (results.maxFileBytes in the config)\n`);
  });

  test("output that fits makes no file", async () => {
    expect((await bash("seq 1 3")).content).toBe("1\n2\n3\nexit code: 0");
    expect(await readdir(dir)).toEqual([]);
  });

  test("a link the command plants at its own results file is not written through: the output goes to the next name", async () => {
    await writeFile(join(dir, "plugboard.json"), "{}");
    const { content } = await bash("mkdir -p .plugboard/results && ln -s ../../plugboard.json .plugboard/results/call_1.txt && seq 1 33000");
    expect(await readFile(join(dir, "plugboard.json"), "utf8")).toBe("{}");
    expect(content).toContain("the whole result is in .plugboard/results/call_1-2.txt");
    expect(await readFile(join(dir, ".plugboard/results/call_1-2.txt"), "utf8")).toBe(seq(33_000));
  });
});
