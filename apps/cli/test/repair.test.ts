/**
 * Repaired calls end to end: the scripted model sends almost-JSON arguments and a loosely
 * written tool name over real HTTP to the real CLI; the files written and the audit log show
 * what ran and what the model sent.
 */
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/testing";
import { plugboard, tempFolder, toolResults, writeConfig } from "./helpers.ts";

test("a trailing comma, a code fence and a tool name's case are repaired; a truncated call is not completed", async () => {
  await using folder = await tempFolder({ "workspace/notes.txt": "first line\n" });
  const config = await writeConfig(folder.dir, { audit: "audit.jsonl" });
  await using model = await startScriptedModel([
    {
      toolCalls: [
        { id: "comma", name: "write_file", arguments: '{"path":"a.txt","content":"hi",}' },
        { id: "fence", name: "read_file", arguments: '```json\n{"path":"notes.txt"}\n```' },
        { id: "named", name: "Write-File", arguments: '{"path":"b.txt","content":"yo"}' },
        { id: "cut", name: "write_file", arguments: '{"path":"c.txt","content":"x' },
      ],
    },
    { content: "done" },
  ]);
  const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd: folder.dir });
  expect(result.code).toBe(0);
  const results = toolResults(model);
  expect(results.comma).toBe("Wrote 2 bytes to a.txt");
  expect(results.fence).toContain("first line");
  expect(results.named).toBe("Wrote 2 bytes to b.txt");
  expect(results.cut).toStartWith("Error: Invalid arguments: JSON Parse error");
  const workspace = join(folder.dir, "workspace");
  expect(await readFile(join(workspace, "a.txt"), "utf8")).toBe("hi");
  expect(await readFile(join(workspace, "b.txt"), "utf8")).toBe("yo");
  expect(existsSync(join(workspace, "c.txt"))).toBe(false);

  const records = (await readFile(join(folder.dir, "audit.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line));
  // The cut-off call never reached the policy: it has no line.
  expect(records.map(({ callId, tool, repaired }) => ({ callId, tool, repaired }))).toEqual([
    { callId: "comma", tool: "write_file", repaired: { arguments: '{"path":"a.txt","content":"hi",}' } },
    { callId: "fence", tool: "read_file", repaired: { arguments: '```json\n{"path":"notes.txt"}\n```' } },
    { callId: "named", tool: "write_file", repaired: { tool: "Write-File" } },
  ]);
  // The trace shows the call as the model sent it.
  expect(result.stderr).toContain("Write-File");
}, 30_000);
