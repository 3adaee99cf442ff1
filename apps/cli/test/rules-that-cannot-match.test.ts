/**
 * Rules that cannot match are errors, end to end: a policy rule, a hook or a `tools.pinned`
 * entry naming a tool no enabled plugin or server provides, or an `args` key the tool's schema
 * lacks, makes every start (and `check`, `policy explain`, `policy test`) exit 2 with one
 * message naming the nearest real name. A tool its pin withholds still counts as provided, and
 * a wildcard is refused only when it matches no tool.
 */
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { realpathSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startScriptedModel } from "@plugboard/testing";
import { FIRST_PARTY, plugboard, STACK_FRAME, tempFolder, writeConfig } from "./helpers.ts";

// Several CLI processes per test, some starting an MCP server: more than bun's default 5 s on a busy machine.
setDefaultTimeout(60_000);

const SERVER = join(import.meta.dir, "fixtures/changing-server/server.ts");
const CORE = realpathSync(Bun.resolveSync("@plugboard/core", import.meta.dir));
const ENABLED = "bash, read_file, write_file, edit_file, glob";
const FIX =
  'A rule, hook or pinned name that no tool has never matches: correct it, or enable the plugin or server that provides the tool (plugboard tools lists the names; a server\'s "prefix" is part of its tools\' names).';

/** The whole stderr of a start refused for `problems`. */
const refused = (path: string, ...problems: string[]) => [`plugboard: Invalid config file ${path}:`, ...problems.map((line) => `  ${line}`), FIX, ""].join("\n");

describe("a name no tool has", () => {
  test.each([
    ["check", ["check", "--offline"]],
    ["run", ["run", "hi"]],
    ["call", ["call", "read_file", '{"path":"a.txt"}']],
    ["policy explain", ["policy", "explain", "read_file", '{"path":"a.txt"}']],
    ["policy test", ["policy", "test", "cases.json"]],
  ])("a policy rule's tool: %s exits 2 naming the nearest tool", async (_, args) => {
    await using folder = await tempFolder({ "workspace/a.txt": "hi", "cases.json": '[{ "tool": "read_file", "args": {}, "expect": "allow" }]' });
    const path = await writeConfig(folder.dir, { policy: { default: "allow", rules: [{ tool: "read_fil", action: "deny" }] } });
    const result = await plugboard([...args, "--config", path], { cwd: folder.dir });
    expect(result).toEqual({ code: 2, stdout: "", stderr: refused(path, 'policy.rules[0].tool: no enabled tool is named "read_fil"; did you mean read_file?') });
    expect(result.stderr).not.toContain(STACK_FRAME);
  });

  test("an args key the tool's schema lacks, for a name and for a wildcard", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const rules = [
      { tool: "read_file", args: { pth: "secrets/*" }, action: "deny" },
      { tool: "*_file", args: { paht: "secrets/*" }, action: "deny" },
      { tool: "bash", args: { path: "x" }, action: "deny" },
    ];
    const path = await writeConfig(folder.dir, { policy: { rules } });
    const result = await plugboard(["check", "--offline", "--config", path], { cwd: folder.dir });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: refused(
        path,
        'policy.rules[0].args.pth: read_file has no argument "pth"; did you mean path?',
        'policy.rules[1].args.paht: no tool matching "*_file" has an argument "paht"; did you mean path?',
        'policy.rules[2].args.path: bash has no argument "path" (arguments: command, timeout_ms)',
      ),
    });
  });

  test("a tools.pinned entry, the nearest named when one is close", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const path = await writeConfig(folder.dir, { tools: { pinned: ["read_file", "sky_report", "read_files"] } });
    const result = await plugboard(["tools", "--config", path], { cwd: folder.dir });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: refused(path, `tools.pinned[1]: no enabled tool is named "sky_report" (enabled: ${ENABLED})`, 'tools.pinned[2]: no enabled tool is named "read_files"; did you mean read_file?'),
    });
  });

  test("a hook's tool, still an error, now with the nearest tool", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const path = await writeConfig(folder.dir, { hooks: { before: [{ tool: "bsah", command: ["true"] }] } });
    const result = await plugboard(["check", "--offline", "--config", path], { cwd: folder.dir });
    expect(result).toEqual({ code: 2, stdout: "", stderr: refused(path, 'hooks.before[0].tool: no enabled tool is named "bsah"; did you mean bash?') });
  });
});

describe("wildcards", () => {
  test("a tool pattern matching no tool is an error", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const path = await writeConfig(folder.dir, { policy: { rules: [{ tool: "mcp_*", action: "ask" }] }, hooks: { after: [{ tool: "*_search", command: ["true"] }] } });
    const result = await plugboard(["check", "--offline", "--config", path], { cwd: folder.dir });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: refused(path, `policy.rules[0].tool: no enabled tool matches "mcp_*" (enabled: ${ENABLED})`, `hooks.after[0].tool: no enabled tool matches "*_search" (enabled: ${ENABLED})`),
    });
  });

  test("a pattern matching some tool, with an argument one of them has, is fine", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const rules = [{ tool: "*", action: "ask" }, { tool: "*_file", args: { path: "secrets/*" }, action: "deny" }, { tool: "gl?b", action: "allow" }];
    const path = await writeConfig(folder.dir, { policy: { rules }, hooks: { before: [{ tool: "*_file", command: ["true"] }] } });
    const result = await plugboard(["check", "--offline", "--config", path], { cwd: folder.dir });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("    2. *_file path=secrets/* → deny\n");
  });
});

describe("tools withheld by their pins count as provided", () => {
  test("a server's new tool, withheld until accepted, may be named by rules, hooks and tools.pinned: the start goes on", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const tools = (list: readonly string[]) =>
      writeFile(join(folder.dir, "workspace/tools.json"), JSON.stringify(list.map((name) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object", properties: { word: { type: "string" } } } }))));
    const server = { mcp: { command: process.execPath, args: [SERVER] }, name: "dictionary", prefix: "dict_" };
    await tools(["lookup"]);
    const plain = await writeConfig(folder.dir, { plugins: [...FIRST_PARTY, server] });
    expect((await plugboard(["check", "--offline", "--config", plain], { cwd: folder.dir })).code).toBe(0);
    // The server's update adds a tool, which its pin withholds; the person has named it already.
    await tools(["lookup", "spell"]);
    const path = await writeConfig(folder.dir, {
      plugins: [...FIRST_PARTY, server],
      policy: { rules: [{ tool: "dict_spell", args: { word: "x*" }, action: "ask" }, { tool: "dict_lookup", action: "allow" }] },
      hooks: { before: [{ tool: "dict_spell", command: ["true"] }] },
      tools: { pinned: ["dict_spell"] },
    });
    const check = await plugboard(["check", "--offline", "--config", path], { cwd: folder.dir });
    expect(check.code).toBe(1);
    expect(check.stdout).toContain("dictionary has a new tool dict_spell");
    await using model = await startScriptedModel([{ content: "ok" }]);
    const run = await plugboard(["run", "--config", path, "--base-url", model.baseURL, "hi"], { cwd: folder.dir });
    expect(run).toMatchObject({ code: 0, stdout: "ok\n" });
    expect(run.stderr).toContain("dictionary has a new tool dict_spell");
    // A name the server has not at all is still refused, its nearest among the server's tools.
    await writeFile(path, JSON.stringify({ workspace: "./workspace", sandbox: "off", plugins: [...FIRST_PARTY, server], policy: { rules: [{ tool: "dict_spel", action: "deny" }] } }));
    const typo = await plugboard(["check", "--offline", "--config", path], { cwd: folder.dir });
    expect(typo).toMatchObject({ code: 2, stderr: refused(path, 'policy.rules[0].tool: no enabled tool is named "dict_spel"; did you mean dict_spell?') });
  });
});

test("a plugin not loaded since its code changed still provides its tools to the config's names", async () => {
  const module = (answer: string) =>
    [
      `import { definePlugin, defineTool, textResult, Type } from ${JSON.stringify(CORE)};`,
      "export default definePlugin({",
      "  options: Type.Object({}),",
      `  tools: () => [defineTool({ name: "notes", description: "Read the notes.", parameters: Type.Object({ topic: Type.String() }), handler: async () => textResult(${JSON.stringify(answer)}) })],`,
      "});",
      "",
    ].join("\n");
  const manifest = { name: "notes", version: "0.1.0", contract: "^1.0.0", entry: "./src/index.js", tools: [{ name: "notes", description: "Read the notes." }], permissions: [] };
  await using folder = await tempFolder({
    "workspace/.keep": "",
    "notes/package.json": JSON.stringify({ name: "notes", version: "0.1.0", type: "module" }),
    "notes/plugboard.plugin.json": JSON.stringify(manifest),
    "notes/src/index.js": module("first"),
  });
  const path = await writeConfig(folder.dir, {
    plugins: [...FIRST_PARTY, { path: "./notes", permissions: [] }],
    policy: { rules: [{ tool: "notes", args: { topic: "secret*" }, action: "deny" }] },
    hooks: { after: [{ tool: "notes", command: ["true"] }] },
    tools: { pinned: ["notes"] },
  });
  expect((await plugboard(["check", "--offline", "--config", path], { cwd: folder.dir })).code).toBe(0);
  await writeFile(join(folder.dir, "notes/src/index.js"), module("changed"));
  const check = await plugboard(["check", "--offline", "--config", path], { cwd: folder.dir });
  expect(check.stderr).toBe("");
  expect(check.code).toBe(1);
  expect(check.stdout).toContain("not loaded: 1 plugin whose code changed since pinned");
  await using model = await startScriptedModel([{ content: "ok" }]);
  expect(await plugboard(["run", "--config", path, "--base-url", model.baseURL, "hi"], { cwd: folder.dir })).toMatchObject({ code: 0, stdout: "ok\n" });
});
