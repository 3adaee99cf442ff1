/** The audit log end to end: real CLI processes appending to one file, the scripted model over real HTTP. */
import { describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, tempFolder, writeConfig } from "./helpers.ts";

const CALLS = 25;
const PROCESSES = 4;

describe("the audit log", () => {
  test("four processes appending 25 calls each leave 100 whole JSON lines", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const config = await writeConfig(folder.dir, {
      audit: "audit.jsonl",
      policy: { default: "allow", rules: [{ tool: "write_file", args: { path: "denied/*" }, action: "deny" }] },
    });
    // Lines of ~20 KB, each from one write: a line split into several writes would interleave.
    const content = "x".repeat(20_000);
    const models = await Promise.all(
      Array.from({ length: PROCESSES }, (_, p) =>
        startScriptedModel([
          {
            toolCalls: Array.from({ length: CALLS }, (_, i) => ({
              id: `p${p}_c${i}`,
              name: "write_file",
              arguments: { path: `${i % 5 === 0 ? "denied" : "out"}/p${p}_${i}.txt`, content },
            })),
          },
          { content: "done" },
        ]),
      ),
    );
    try {
      const results = await Promise.all(
        models.map((model) => plugboard(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir })),
      );
      expect(results.map((result) => result.code)).toEqual([0, 0, 0, 0]);
    } finally {
      await Promise.all(models.map((model) => model.close()));
    }
    const text = await readFile(join(folder.dir, "audit.jsonl"), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const records = text.slice(0, -1).split("\n").map((line) => JSON.parse(line));
    expect(records).toHaveLength(PROCESSES * CALLS);
    const sessions = new Set(records.map((record) => record.session));
    expect(sessions.size).toBe(PROCESSES);
    expect(new Set(records.map((record) => record.callId)).size).toBe(PROCESSES * CALLS);
    const denied = records.filter((record) => record.decision === "deny");
    expect(denied).toHaveLength(PROCESSES * 5);
    expect(denied.every((record) => record.rule === "write_file path=denied/*" && record.isError)).toBe(true);
    const sample = records.find((record) => record.decision === "allow");
    expect(Object.keys(sample).sort()).toEqual(["args", "callId", "decision", "durationMs", "isError", "resultBytes", "session", "tool", "ts"]);
    expect(sample.args.content).toBe(content);
    expect(sample.resultBytes).toBe(Buffer.byteLength(`Wrote 20000 bytes to ${sample.args.path}`));
    // Four CLI processes and 100 writes of 20 KB outlast bun's default 5 s on a busy machine.
  }, 60_000);

  test("an audit file that cannot be opened exits 2 before any model request", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const config = await writeConfig(folder.dir, { audit: "no-such-folder/audit.jsonl" });
    await using model = await startScriptedModel([{ content: "never" }]);
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "hi"], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`Cannot open the audit log ${join(folder.dir, "no-such-folder/audit.jsonl")} (ENOENT)`);
    expect(model.requests).toHaveLength(0);
  });

  test("check shows the audit log's path", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const config = await writeConfig(folder.dir, { audit: "audit.jsonl" });
    const result = await plugboard(["check", "--config", config], { cwd: folder.dir });
    expect(result.stdout).toContain(`  audit:     ${join(folder.dir, "audit.jsonl")}`);
    expect(result.stdout).toContain("  policy:    0 rules (the first that matches decides), else allow");
  });
});
