/**
 * Every provider's schema dialect, through the real `plugboard run`: the five first-party
 * tools and an MCP server whose schema has `$schema`, `$ref`, `const` and a type array are
 * called in each dialect against a scripted endpoint that enforces that provider's rules
 * (`rules` of the scripted model, written apart from the rewrite); the same endpoint with the
 * dialect left at `openai` is one message naming the tool and the fix.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { fileURLToPath } from "node:url";
import { type ProviderRules, type ScriptedToolCall, startScriptedModel } from "@plugboard/testing";
import { FIRST_PARTY, STACK_FRAME, plugboard, tempFolder, toolResults, writeConfig } from "./helpers.ts";

const SERVER = fileURLToPath(new URL("fixtures/dialect-server/server.ts", import.meta.url));
const weather = { mcp: { command: process.execPath, args: [SERVER] }, name: "weather" };
const FILES = { "workspace/README.md": "# Demo\nsecond line\n", "workspace/notes.txt": "alpha beta\n" };

/** Real processes (plugboard, an MCP server): a busy machine needs more than bun's default 5 s. */
const TIMEOUT = 60_000;

let dir = "";
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempFolder());
});
afterAll(() => remove());

/** `plugboard run` with a config of `plugins` in `dialect` (none: the default) against `baseURL`. */
async function run(baseURL: string, dialect: string | undefined, plugins: readonly unknown[] = [...FIRST_PARTY, weather]) {
  const folder = `${dir}/${crypto.randomUUID()}`;
  await Bun.write(`${folder}/workspace/README.md`, FILES["workspace/README.md"]);
  await Bun.write(`${folder}/workspace/notes.txt`, FILES["workspace/notes.txt"]);
  const config = await writeConfig(folder, { plugins, ...(dialect === undefined ? {} : { model: { dialect } }) });
  const result = await plugboard(["run", "--config", config, "--base-url", baseURL, "go"], { cwd: folder });
  return { ...result, folder };
}

/** One call of each first-party tool and of the server's, as a model in `dialect` sends them. */
function everyTool(dialect: string): ScriptedToolCall[] {
  // Strict mode makes the model send every property: null for those it leaves out.
  const absent = dialect === "openai-strict" ? null : undefined;
  return [
    { id: "bash", name: "bash", arguments: { command: "echo hi", timeout_ms: absent } },
    { id: "read", name: "read_file", arguments: { path: "README.md", offset: absent, limit: absent } },
    { id: "write", name: "write_file", arguments: { path: "out.txt", content: "written\n" } },
    { id: "edit", name: "edit_file", arguments: { path: "notes.txt", old_text: "beta", new_text: "gamma" } },
    { id: "glob", name: "glob", arguments: { pattern: "*.md" } },
    { id: "forecast", name: "forecast", arguments: { kind: "daily", place: { city: "Lyon" }, unit: null, days: absent } },
    { id: "stations", name: "stations", arguments: {} },
  ];
}

const RULES: Readonly<Record<string, ProviderRules | undefined>> = { openai: undefined, "openai-strict": "openai-strict", gemini: "gemini" };

describe("each dialect against an endpoint with its provider's rules", () => {
  for (const dialect of ["openai", "openai-strict", "gemini"]) {
    test(`${dialect}: the five first-party tools and the MCP server's are sent as it takes them and called`, async () => {
      const rules = RULES[dialect];
      await using model = await startScriptedModel([{ toolCalls: everyTool(dialect) }, { content: "done" }], rules === undefined ? {} : { rules });
      const result = await run(model.baseURL, dialect);
      expect(result.stderr).not.toContain(STACK_FRAME);
      expect(result.stderr).toContain(`plugboard: model gpt-4.1-mini at ${model.baseURL} (dialect ${dialect})\n`);
      expect(result).toMatchObject({ code: 0, stdout: "done\n" });
      const results = toolResults(model);
      expect(results.bash).toContain("hi");
      expect(results.read).toStartWith("# Demo\nsecond line");
      expect(results.write).not.toStartWith("Error");
      expect(results.edit).not.toStartWith("Error");
      expect(results.glob).toBe("README.md");
      expect(results.forecast).toBe(`forecast {"kind":"daily","place":{"city":"Lyon"},"unit":null}`);
      expect(results.stations).toBe("stations {}");
      expect(await Bun.file(`${result.folder}/workspace/notes.txt`).text()).toBe("alpha gamma\n");
      const sent = model.requests[0]?.body.tools ?? [];
      expect(sent).toHaveLength(7);
      const strict = sent.filter((tool) => (tool as { function: { strict?: boolean } }).function.strict === true);
      if (dialect === "openai-strict") expect(strict.length).toBeGreaterThan(0);
      else expect(strict).toEqual([]);
      if (dialect === "gemini") expect(JSON.stringify(sent)).not.toMatch(/additionalProperties|\$ref|\$schema|"const"/);
      // plugboard tools --json prints exactly what the model is sent, in the config's dialect.
      const listed = await plugboard(["tools", "--json", "--config", `${result.folder}/plugboard.config.json`], { cwd: result.folder });
      expect(JSON.parse(listed.stdout)).toEqual(sent);
    }, TIMEOUT);
  }

  test("gemini leaves out the request fields Gemini refuses", async () => {
    await using model = await startScriptedModel([{ content: "done" }], { rules: "gemini" });
    const result = await run(model.baseURL, "gemini", []);
    expect(result).toMatchObject({ code: 0, stdout: "done\n" });
    expect(Object.keys(model.requests[0]?.body ?? {}).sort()).toEqual(["messages", "model", "stream"]);
  }, TIMEOUT);

  test("an argument that breaks a constraint the dialect dropped (an extra property) is still refused", async () => {
    const calls = [
      { id: "read", name: "read_file", arguments: { path: "README.md", extra: 1 } },
      { id: "forecast", name: "forecast", arguments: { kind: "daily", place: { city: "Lyon", extra: 1 } } },
    ];
    await using model = await startScriptedModel([{ toolCalls: calls }, { content: "done" }], { rules: "gemini" });
    const result = await run(model.baseURL, "gemini");
    expect(result.code).toBe(0);
    const results = toolResults(model);
    expect(results.read).toStartWith("Error: Invalid arguments for read_file");
    expect(results.forecast).toStartWith("Error: Invalid arguments for forecast");
  }, TIMEOUT);
});

describe("the dialect left at openai against Gemini's rules", () => {
  test("names the first tool refused, its plugin and the dialect that fixes it (exit 3)", async () => {
    await using model = await startScriptedModel([{ content: "never" }], { rules: "gemini" });
    const result = await run(model.baseURL, undefined);
    expect(result.code).toBe(3);
    expect(result.stderr).not.toContain(STACK_FRAME);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toEqual([
      `plugboard: model gpt-4.1-mini at ${model.baseURL} (dialect openai)`,
      `plugboard: Model endpoint ${model.baseURL} refused the schema of tool bash (provided by @plugboard/plugin-bash) (400: Invalid JSON payload received. Unknown name "additionalProperties" at 'tools[0].function_declarations[0].parameters': Cannot find field. and 11 more); set "model": {"dialect": "gemini"} in the config to send it in a form the endpoint takes (it is sent in the openai dialect)`,
    ]);
  }, TIMEOUT);

  test("an MCP server's tool is named with its server", async () => {
    await using model = await startScriptedModel([{ content: "never" }], { rules: "gemini" });
    const result = await run(model.baseURL, undefined, [weather]);
    expect(result.code).toBe(3);
    expect(result.stderr.trim().split("\n").at(-1)).toStartWith(
      `plugboard: Model endpoint ${model.baseURL} refused the schema of tool forecast (provided by weather) (400: Invalid JSON payload received. Unknown name "$schema" at 'tools[0].function_declarations[0].parameters': Cannot find field.`,
    );
    expect(result.stderr).toContain(`; set "model": {"dialect": "gemini"} in the config`);
  }, TIMEOUT);
});

test("plugboard check names the dialect and the tools it rewrites; the default at Google's host is gemini", async () => {
  const folder = `${dir}/${crypto.randomUUID()}`;
  await Bun.write(`${folder}/workspace/README.md`, "# Demo\n");
  const config = await writeConfig(folder, { plugins: [FIRST_PARTY[1], weather] });
  const at = (baseURL: string) => plugboard(["check", "--offline", "--config", config, "--base-url", baseURL], { cwd: folder });
  const google = await at("https://generativelanguage.googleapis.com/v1beta/openai/");
  expect(google.code).toBe(0);
  expect(google.stdout).toContain("\n  dialect:   gemini (rewritten for it: read_file, forecast, stations)\n");
  const local = await at("http://127.0.0.1:9/v1");
  expect(local.stdout).toContain("\n  dialect:   openai\n");
}, TIMEOUT);

test("a tool name the dialect refuses is a config error naming prefix (exit 2)", async () => {
  await using model = await startScriptedModel([], { rules: "gemini" });
  const result = await run(model.baseURL, "gemini", [{ ...weather, prefix: "7" }]);
  expect(result.code).toBe(2);
  expect(result.stderr).not.toContain(STACK_FRAME);
  expect(result.stderr).toContain("weather (plugins[0]) provides a tool named 7forecast, a name the model's dialect refuses: gemini takes a letter or _ first");
  expect(result.stderr).toContain('Set a "prefix" on its entry that starts with a letter (such as "prefix": "weather_")');
  expect(model.requests).toEqual([]);
}, TIMEOUT);
