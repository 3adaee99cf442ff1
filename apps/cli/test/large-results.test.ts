/**
 * Large results go to a file, end to end: the real CLI, the scripted model, a confined bash
 * and a mounted MCP server. The model gets the head and the tail with the file's name; the
 * file, in the workspace's git-ignored `.plugboard/results/`, holds every byte; read_file
 * pages it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/testing";
import { FIRST_PARTY, plugboard, tempFolder, toolResults, writeConfig } from "./helpers.ts";

const READING_SERVER = join(import.meta.dir, "fixtures/reading-server/server.ts");
const TIMEOUT = 60_000;

let dir = "";
let remove = async () => {};
let workspace = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\n" }));
  workspace = join(dir, "workspace");
});
afterAll(() => remove());

/** `seq 1 N`'s output. */
const seq = (count: number) => `${Array.from({ length: count }, (_, i) => i + 1).join("\n")}\n`;

const CUT = /\n… (\d+) bytes cut; the whole result is in (\S+) \(read_file with offset\/limit pages it\)\n/;

describe("a result over results.maxBytes", () => {
  test("200,000 bytes of a confined bash reach the model as head + tail + the file's name; the file holds every byte; read_file pages it", async () => {
    const config = await writeConfig(dir, { sandbox: "required" });
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "call_big", name: "bash", arguments: { command: "seq 1 40000 | head -c 200000" } }] },
      { toolCalls: [{ id: "call_page", name: "read_file", arguments: { path: ".plugboard/results/call_big.txt", offset: 30000, limit: 3 } }] },
      { content: "Read it." },
    ]);
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "print a lot"], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stdout: "Read it.\n" });
    const printed = seq(40_000).slice(0, 200_000);
    expect(await readFile(join(workspace, ".plugboard/results/call_big.txt"), "utf8")).toBe(printed);
    expect(await readFile(join(workspace, ".plugboard/results/.gitignore"), "utf8")).toBe("*\n");

    const big = toolResults(model, 1).call_big ?? "";
    const [, cut, path] = CUT.exec(big) ?? [];
    expect(path).toBe(".plugboard/results/call_big.txt");
    const [head = "", tail = ""] = big.split(CUT).filter((_, i) => i % 3 === 0);
    expect(printed.startsWith(head) && head.length > 20_000).toBe(true);
    expect(tail).toEndWith("\nexit code: 0");
    expect(printed.endsWith(tail.slice(0, -"\nexit code: 0".length))).toBe(true);
    expect(Number(cut)).toBe(200_000 - head.length - (tail.length - "\nexit code: 0".length));
    expect(Buffer.byteLength(big)).toBeLessThanOrEqual(50_000);

    expect(toolResults(model, 2).call_page).toBe(`30000\n30001\n30002\n... (${printed.split("\n").length - 30002} more lines)`);
  }, TIMEOUT);

  test("a mounted MCP tool's large result is cut the same way, at the config's results.maxBytes", async () => {
    const text = seq(30_000);
    await writeFile(join(workspace, "big.txt"), text);
    const config = await writeConfig(dir, {
      plugins: [...FIRST_PARTY, { mcp: { command: process.execPath, args: [READING_SERVER] }, name: "reading" }],
      results: { maxBytes: 10_000 },
    });
    await using model = await startScriptedModel([{ toolCalls: [{ id: "mcp/1", name: "read", arguments: { path: "big.txt" } }] }, { content: "Done." }]);
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "read big.txt"], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stdout: "Done.\n" });
    const seen = toolResults(model)["mcp/1"] ?? "";
    // The id's "/" is no folder: the file is a plain name in the results folder.
    expect(CUT.exec(seen)?.[2]).toBe(".plugboard/results/mcp_1.txt");
    expect(Buffer.byteLength(seen)).toBeLessThanOrEqual(10_000);
    const [head = "", tail = ""] = seen.split(CUT).filter((_, i) => i % 3 === 0);
    expect(text.startsWith(head) && text.endsWith(tail) && head.length > 4000).toBe(true);
    expect(await readFile(join(workspace, ".plugboard/results/mcp_1.txt"), "utf8")).toBe(text);
    expect(await readdir(join(workspace, ".plugboard/results"))).toContain("mcp_1.txt");
  }, TIMEOUT);

  test("a bad results value is a config error naming the key", async () => {
    const config = await writeConfig(dir, { results: { maxBytes: 0 } });
    const result = await plugboard(["check", "--config", config], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("results.maxBytes: expected at least 1, got 0");
  }, TIMEOUT);
});
