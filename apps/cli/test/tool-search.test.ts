/**
 * Tool search through the real `plugboard` process: a fixture MCP server mounting 300 tools
 * beside the five first-party ones, and the scripted model recording what it is sent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startScriptedModel } from "@plugboard/testing";
import { cleanEnv, FIRST_PARTY, plugboard, STACK_FRAME, tempFolder, toolResults, writeConfig } from "./helpers.ts";

const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));

const SERVER = join(import.meta.dir, "fixtures/many-tools-server/server.ts");
const manyTools = (...args: string[]) => ({ mcp: { command: process.execPath, args: [SERVER, ...args] }, name: "many" });

/** Each test starts real processes (plugboard, the server); a busy machine needs more than bun's default 5 s. */
const TIMEOUT = 60_000;

let dir = "";
let remove = async () => {};
let config = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\n" }));
  config = await writeConfig(dir, { plugins: [...FIRST_PARTY, manyTools("300")], tools: { pinned: ["read_file", "glob"] }, audit: "audit.jsonl" });
});
afterAll(() => remove());

/** The tool names of each request the model got. */
const toolNames = (model: { requests: readonly { body: { tools?: readonly unknown[] } }[] }) =>
  model.requests.map((request) => (request.body.tools ?? []).map((tool) => (tool as { function: { name: string } }).function.name));

const SEARCH_THEN_CALL = [
  { toolCalls: [{ id: "call_search", name: "tool_search", arguments: { query: "weather tomorrow rain" } }] },
  { toolCalls: [{ id: "call_sky", name: "sky_report", arguments: { city: "Paris" } }] },
  { content: "Rain tomorrow afternoon." },
];

describe("305 tools, over tools.searchOver (64)", () => {
  test("plugboard run: the first request carries tool_search and the pinned tools only; a search finds a tool by its description, and the model calls it", async () => {
    await using model = await startScriptedModel(SEARCH_THEN_CALL);
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "will it rain in Paris tomorrow?"], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stdout: "Rain tomorrow afternoon.\n" });
    const [first, second, third] = toolNames(model);
    expect(first).toEqual(["tool_search", "read_file", "glob"]);
    expect(toolResults(model, 1).call_search).toStartWith('1 tool matches "weather tomorrow rain", callable from your next step:\n- sky_report: ');
    expect(second).toEqual(["tool_search", "read_file", "glob", "sky_report"]);
    expect(third).toEqual(second ?? []);
    expect(toolResults(model).call_sky).toBe("Tomorrow in Paris: rain from 14:00, 12 °C, wind 20 km/h.");
    expect(result.stderr).toContain("[tool] tool_search");
    expect(result.stderr).toContain("[tool] sky_report");
    // The search is answered by Plugboard itself: the audit log records the tool's call only.
    const audit = (await readFile(join(dir, "audit.jsonl"), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as { tool: string });
    expect(audit.map(({ tool }) => tool)).toEqual(["sky_report"]);
  }, TIMEOUT);

  test("the interactive session keeps a found tool for its later turns", async () => {
    await using model = await startScriptedModel([...SEARCH_THEN_CALL, { content: "Still raining." }]);
    const result = await plugboard(["--config", config, "--base-url", model.baseURL], { cwd: dir, stdin: "rain tomorrow?\nand the day after?\nexit\n" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Still raining.");
    expect(toolNames(model)[3]).toEqual(["tool_search", "read_file", "glob", "sky_report"]);
  }, TIMEOUT);

  test("plugboard check says the search is on and what the model is sent", async () => {
    const result = await plugboard(["check", "--offline", "--config", config], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n {2}tools: {5}305 \(bash, .*sky_report.*\)\n {2}search: {4}on \(more than 64 tools\): the model is sent tool_search and read_file, glob\n/);
  }, TIMEOUT);

  test("plugboard tools lists every tool and says the model gets them by search", async () => {
    const result = await plugboard(["tools", "--config", config], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("sky_report(city, days?)\n  Tell tomorrow's weather");
    expect(result.stdout).toEndWith(
      "\n\n305 tools are enabled, more than tools.searchOver (64): the model is sent tool_search and the pinned tools (read_file, glob), and finds the others by searching.\n",
    );
  }, TIMEOUT);

  test("plugboard mcp serves every tool to its client, and no tool_search: the client does its own choosing", async () => {
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StdioClientTransport({ command: "bun", args: [MAIN, "mcp", "--config", config], cwd: dir, env: cleanEnv(), stderr: "ignore" }));
    try {
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(305);
      expect(tools.map(({ name }) => name)).not.toContain("tool_search");
    } finally {
      await client.close();
    }
  }, TIMEOUT);
});

describe("plugboard tools --json prints exactly what the model is sent", () => {
  for (const dialect of ["openai", "gemini"]) {
    test(`over tools.searchOver (2), in the ${dialect} dialect: tool_search and the pinned tools, as the first request carries them`, async () => {
      await using folder = await tempFolder({ "workspace/.keep": "" });
      const path = await writeConfig(folder.dir, { model: { dialect }, tools: { searchOver: 2, pinned: ["read_file", "glob"] } });
      await using model = await startScriptedModel([{ content: "hi" }], dialect === "gemini" ? { rules: "gemini" } : {});
      const result = await plugboard(["run", "--config", path, "--base-url", model.baseURL, "hi"], { cwd: folder.dir });
      expect(result).toMatchObject({ code: 0, stdout: "hi\n" });
      const sent = model.requests[0]?.body.tools ?? [];
      expect(toolNames(model)[0]).toEqual(["tool_search", "read_file", "glob"]);
      const listed = await plugboard(["tools", "--json", "--config", path], { cwd: folder.dir });
      expect(listed).toMatchObject({ code: 0, stderr: "" });
      expect(JSON.parse(listed.stdout)).toEqual(sent);
    }, TIMEOUT);
  }
});

describe("at or below tools.searchOver", () => {
  test("nothing changes: every tool is sent, and no tool_search", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const path = await writeConfig(folder.dir, { plugins: [...FIRST_PARTY, manyTools("300")], tools: { searchOver: 305 } });
    await using model = await startScriptedModel([{ content: "hi" }]);
    const result = await plugboard(["run", "--config", path, "--base-url", model.baseURL, "hi"], { cwd: folder.dir });
    expect(result).toMatchObject({ code: 0, stdout: "hi\n" });
    const [first] = toolNames(model);
    expect(first).toHaveLength(305);
    expect(first?.slice(0, 6)).toEqual(["bash", "read_file", "write_file", "edit_file", "glob", "github_list_records"]);
    expect(first).not.toContain("tool_search");
    const listed = await plugboard(["tools", "--config", path], { cwd: folder.dir });
    expect(listed.stdout).not.toContain("tool_search");
  }, TIMEOUT);
});

describe("config errors (exit 2)", () => {
  test("a pinned name no plugin or server provides", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const path = await writeConfig(folder.dir, { tools: { pinned: ["read_file", "sky_report", "read_files"] } });
    const result = await plugboard(["check", "--config", path], { cwd: folder.dir });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: [
        `plugboard: Invalid config file ${path}:`,
        '  tools.pinned[1]: no enabled tool is named "sky_report" (enabled: bash, read_file, write_file, edit_file, glob)',
        '  tools.pinned[2]: no enabled tool is named "read_files"; did you mean read_file?',
        'A rule, hook or pinned name that no tool has never matches: correct it, or enable the plugin or server that provides the tool (plugboard tools lists the names; a server\'s "prefix" is part of its tools\' names).',
        "",
      ].join("\n"),
    });
  }, TIMEOUT);

  test("a mounted tool named tool_search while the search is on", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const path = await writeConfig(folder.dir, { plugins: [manyTools("100", "--own-search")] });
    const result = await plugboard(["tools", "--config", path], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      [
        'plugboard: many (plugins[0]) provides a tool named tool_search, the name of the built-in tool search, which is on because 101 tools are enabled (more than "tools.searchOver": 64).',
        `  config: ${path}`,
        'Set a "prefix" on its entry (an MCP server) or remove it from the config, or set "tools.searchOver" to 101 or more to send every tool instead.',
        "",
      ].join("\n"),
    );
    expect(result.stderr).not.toContain(STACK_FRAME);
    // Below the threshold it is a tool like any other.
    const below = await writeConfig(folder.dir, { plugins: [manyTools("100", "--own-search")], tools: { searchOver: 101 } });
    expect((await plugboard(["tools", "--config", below], { cwd: folder.dir })).code).toBe(0);
  }, TIMEOUT);
});
