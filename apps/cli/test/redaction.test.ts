/**
 * Secrets never reach the model, end to end: the real CLI, the scripted model over real HTTP
 * (every request it received is recorded, body as sent), a real `.env`, a real private key,
 * read with read_file and with bash `cat`, an after hook whose rewrite carries a secret, and a
 * third-party MCP server echoing its own env value (in a result, and in a tool's description),
 * and bash's capped output cutting a secret in two. (The OAuth tokens: mcp-login.test.ts.)
 * The twin of each redaction is a value the app does not know as a secret: it reaches the
 * model as it is, so the search of the requests would find a secret that leaked.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type ScriptedModel, startScriptedModel } from "@plugboard/testing";
import { cleanEnv, FIRST_PARTY, plugboard, tempFolder, toolResults, writeConfig } from "./helpers.ts";

// One CLI process runs a handful of calls, one through a hook program.
setDefaultTimeout(60_000);

const MODEL_KEY = "sk-proj-Redaction0Test1Model2Key3Value4";
const DB_PASSWORD = "correct-horse-battery-staple";
/** Named like no secret: the twin that shows an unknown value reaches the model as it is. */
const DB_PASSPHRASE = "purple-monkey-dishwasher-42";
const PEM = generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString();
/** The key's body: the part that is the secret. */
const PEM_BODY = PEM.split("\n")[1] ?? "";
const DOT_ENV = `OPENAI_API_KEY=${MODEL_KEY}\nDB_PASSWORD=${DB_PASSWORD}\nDB_PASSPHRASE=${DB_PASSPHRASE}\nSHORT_TOKEN=abc\n`;
const PLACEHOLDER_WRITE = `OPENAI_API_KEY=[redacted: OPENAI_API_KEY]\nDB_PASSWORD=[redacted: DB_PASSWORD]\n`;

let dir = "";
let remove = async () => {};
let model: ScriptedModel;
let run = { code: 0, stdout: "", stderr: "" };
let sent = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({
    // The config beside the workspace's .env, as in a project's root: the .env is the app's own too.
    ".env": DOT_ENV,
    "keys/deploy.pem": PEM,
    "notes.txt": "notes\n",
    "hooks/leak.ts": `await Bun.stdin.text();\nconsole.log(JSON.stringify({ result: "the hook adds ${DB_PASSWORD}" }));\n`,
  }));
  const config = await writeConfig(dir, { workspace: ".", audit: "audit.jsonl", hooks: { after: [{ tool: "glob", command: ["bun", "./hooks/leak.ts"] }] } });
  model = await startScriptedModel([
    {
      toolCalls: [
        { id: "read_env", name: "read_file", arguments: { path: ".env" } },
        { id: "read_pem", name: "read_file", arguments: { path: "keys/deploy.pem" } },
        { id: "cat", name: "bash", arguments: { command: "cat .env keys/deploy.pem" } },
        { id: "hooked", name: "glob", arguments: { pattern: "*.txt" } },
      ],
    },
    {
      toolCalls: [
        { id: "write_placeholder", name: "write_file", arguments: { path: ".env", content: PLACEHOLDER_WRITE } },
        { id: "edit_placeholder", name: "edit_file", arguments: { path: ".env", old_text: "SHORT_TOKEN=abc", new_text: "SHORT_TOKEN=[redacted: SHORT_TOKEN]" } },
        { id: "write_twin", name: "write_file", arguments: { path: "copy.env", content: "DB_PASSWORD=(redacted: DB_PASSWORD)\n" } },
      ],
    },
    { content: "done" },
  ]);
  run = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "look at the keys"], { cwd: dir });
  sent = model.requests.map((request) => request.text).join("\n");
});

afterAll(async () => {
  await model.close();
  await remove();
});

/** The audit log's records by call id. */
async function audited(): Promise<Record<string, { redactions?: number; decision: string }>> {
  const lines = (await readFile(join(dir, "audit.jsonl"), "utf8")).trim().split("\n");
  return Object.fromEntries(lines.map((line) => JSON.parse(line)).map((record) => [record.callId, record]));
}

describe("secrets never reach the model", () => {
  test("the model key, a .env password and a PEM key read by read_file and bash cat are in no request; their placeholders are", () => {
    expect(run.code).toBe(0);
    expect(model.requests).toHaveLength(3);
    for (const secret of [MODEL_KEY, DB_PASSWORD, PEM_BODY]) expect(sent).not.toContain(secret);
    const results = toolResults(model, 1);
    expect(results.read_env).toContain("OPENAI_API_KEY=[redacted: OPENAI_API_KEY]");
    expect(results.read_env).toContain("DB_PASSWORD=[redacted: DB_PASSWORD]");
    expect(results.read_pem).toContain("[redacted: PEM private key]");
    expect(results.cat).toContain("DB_PASSWORD=[redacted: DB_PASSWORD]\n");
    expect(results.cat).toContain("[redacted: PEM private key]");
    expect(results.hooked).toBe("the hook adds [redacted: DB_PASSWORD]");
  });

  test("twins: a value whose name says no secret, and one under 8 characters, reach the model as they are", () => {
    const results = toolResults(model, 1);
    expect(results.read_env).toContain(`DB_PASSPHRASE=${DB_PASSPHRASE}`);
    expect(results.cat).toContain(`DB_PASSPHRASE=${DB_PASSPHRASE}`);
    expect(results.read_env).toContain("SHORT_TOKEN=abc");
    expect(sent).toContain(DB_PASSPHRASE);
  });

  test("the audit counts each call's redactions; the person's trace says how many", async () => {
    const records = await audited();
    expect(records.read_env?.redactions).toBe(2);
    expect(records.read_pem?.redactions).toBe(1);
    expect(records.cat?.redactions).toBe(3);
    expect(records.hooked?.redactions).toBe(1);
    expect(records.write_twin?.redactions).toBeUndefined();
    const traced = run.stderr.split("\n").filter((line) => line.startsWith("[tool] "));
    expect(traced.find((line) => line.startsWith('[tool] read_file {"path":".env"}'))).toEndWith(" (2 secrets redacted before the model)");
    expect(traced.find((line) => line.startsWith("[tool] bash"))).toEndWith(" (3 secrets redacted before the model)");
    expect(traced.find((line) => line.startsWith("[tool] glob"))).toEndWith(" (1 secret redacted before the model)");
    expect(traced.find((line) => line.startsWith("[tool] write_file"))).not.toContain("redacted before the model");
  });

  test("plugboard call, the person's own call, shows the result as it is: no model reads it", async () => {
    const config = join(dir, "plugboard.config.json");
    const text = await plugboard(["call", "--config", config, "read_file", '{"path":".env"}'], { cwd: dir });
    expect(text.stdout).toContain(`DB_PASSWORD=${DB_PASSWORD}`);
    expect(text.stderr).not.toContain("redacted");
    const json = await plugboard(["call", "--config", config, "--json", "read_file", '{"path":"keys/deploy.pem"}'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({ type: "tool_result", id: "direct", is_error: false, content: expect.stringContaining(PEM_BODY) });
  });

  test("a write_file or edit_file carrying a placeholder is refused, the file unchanged; the twin without one writes", async () => {
    const results = toolResults(model, 2);
    const refusal = (tool: string) =>
      `Error: ${tool} was not run: its arguments carry "[redacted: …]", which stands for a secret you were not shown; written to a file it would replace the real secret. Leave the text around that secret as it is (edit the lines beside it), or ask the user to change it`;
    expect(results.write_placeholder).toBe(refusal("write_file"));
    expect(results.edit_placeholder).toBe(refusal("edit_file"));
    expect(await readFile(join(dir, ".env"), "utf8")).toBe(DOT_ENV);
    expect(results.write_twin).toStartWith("Wrote ");
    expect(await readFile(join(dir, "copy.env"), "utf8")).toBe("DB_PASSWORD=(redacted: DB_PASSWORD)\n");
    const records = await audited();
    expect(records.write_placeholder?.decision).toBe("deny");
  });
});

describe("an MCP entry's env values are secrets too", () => {
  test("a third-party server's result carrying one named as a secret is redacted before the model; one named like none passes", async () => {
    const everything = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const env = { SERVICE_TOKEN: "server-env-secret-0123", SERVICE_REGION: "server-env-other-0123" };
    const server = { mcp: { command: process.execPath, args: [everything, "stdio"], env }, name: "everything" };
    const config = await writeConfig(folder.dir, { plugins: [server] });
    await using echo = await startScriptedModel([
      { toolCalls: [{ id: "echo", name: "echo", arguments: { message: "server-env-secret-0123 and server-env-other-0123" } }] },
      { content: "done" },
    ]);
    const result = await plugboard(["run", "--json", "--config", config, "--base-url", echo.baseURL, "echo it"], { cwd: folder.dir });
    expect(result.code).toBe(0);
    const redacted = "Echo: [redacted: everything SERVICE_TOKEN] and server-env-other-0123";
    expect(toolResults(echo).echo).toBe(redacted);
    // --json's tool_result says how many were taken out.
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(events.find((event) => event.type === "tool_result")).toEqual({ type: "tool_result", id: "echo", is_error: false, content: redacted, redactions: 1 });
  });
});

/**
 * The twins of a cut: a file holding `.env`'s DB_PASSWORD and one holding DB_PASSPHRASE (named
 * like no secret), each made by `file`, read by one call of `tool` (`argumentsOf` its file name)
 * in one run of the CLI with `plugin`: what the model got for each, and every request's text.
 */
async function cutTwins(plugin: unknown, tool: string, name: (twin: "secret" | "twin") => string, file: (value: string) => string, argumentsOf: (file: string) => Record<string, unknown>) {
  await using folder = await tempFolder({ "workspace/.env": `DB_PASSWORD=${DB_PASSWORD}\n`, [`workspace/${name("secret")}`]: file(DB_PASSWORD), [`workspace/${name("twin")}`]: file(DB_PASSPHRASE) });
  const config = await writeConfig(folder.dir, { plugins: [plugin] });
  await using model = await startScriptedModel([
    {
      toolCalls: [
        { id: "secret", name: tool, arguments: argumentsOf(name("secret")) },
        { id: "twin", name: tool, arguments: argumentsOf(name("twin")) },
      ],
    },
    { content: "done" },
  ]);
  const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "read them"], { cwd: folder.dir });
  expect(result.code).toBe(0);
  return { results: toolResults(model), sent: model.requests.map((request) => request.text).join("\n") };
}

describe("a secret cut in two by bash's output cap", () => {
  test("its head before the cut line and its tail after it reach the model as placeholders; the twin's halves as they are", async () => {
    // 200 characters kept: the first 100 end 10 characters into the first value, the last 100 start 20 before the second's end.
    const file = (value: string) => `${"h".repeat(90)}${value}${"m".repeat(500)}${value}${"t".repeat(80)}`;
    const bash = { ...FIRST_PARTY[0], options: { maxOutputChars: 200 } };
    const { results, sent } = await cutTwins(bash, "bash", (twin) => `${twin}.txt`, file, (name) => ({ command: `cat ${name}` }));
    const cut = /\n… \d+ bytes cut; the whole result is in \.plugboard\/results\/\S+ \(read_file with offset\/limit pages it\)\n/;
    expect(results.secret).toMatch(new RegExp(`^h{90}\\[redacted: DB_PASSWORD\\]${cut.source}\\[redacted: DB_PASSWORD\\]t{80}\\nexit code: 0$`));
    expect(results.twin).toMatch(new RegExp(`^h{90}${DB_PASSPHRASE.slice(0, 10)}${cut.source}${DB_PASSPHRASE.slice(-20)}t{80}\\nexit code: 0$`));
    for (const part of [DB_PASSWORD.slice(0, 10), DB_PASSWORD.slice(-20)]) expect(sent).not.toContain(part);
  });
});

describe("a secret cut in two by read_file's long-line cut", () => {
  test("its head before the end of the line cut short reaches the model as a placeholder; the twin's head as it is", async () => {
    // read_file keeps the first 2,000 characters of a line: 8 + 1,974 + 8 before the value, so the cut falls 10 characters into it.
    const line = (value: string) => `{"pad":"${"p".repeat(1974)}","pw":"${value}","more":"${"m".repeat(50)}"}\n`;
    const { results, sent } = await cutTwins(FIRST_PARTY[1], "read_file", (twin) => `${twin}.json`, line, (name) => ({ path: name }));
    expect(results.secret).toMatch(/"pw":"\[redacted: DB_PASSWORD\] \.\.\. \(\d+ more bytes in this line\)/);
    expect(results.twin).toContain(`"pw":"${DB_PASSPHRASE.slice(0, 10)} ... (`);
    expect(sent).not.toContain(DB_PASSWORD.slice(0, 10));
  });
});

describe("a secret in a tool's description", () => {
  const MANY_TOOLS = join(import.meta.dir, "fixtures/many-tools-server/server.ts");
  /** One word, so that a search for it would find the tool if the search read the description as the server wrote it. */
  const TOKEN = "Zq8vXw2kLmN4pR7tYb6c";
  const server = (count: number) => ({ mcp: { command: process.execPath, args: [MANY_TOOLS, String(count), "--token-in-description"], env: { SERVICE_TOKEN: TOKEN } }, name: "many" });
  const PLACEHOLDER = "Authenticated with [redacted: many SERVICE_TOKEN].";
  const descriptionOf = (request: ScriptedModel["requests"][number] | undefined, name: string) =>
    (request?.body.tools ?? []).map((tool) => (tool as { function: { name: string; description?: string } }).function).find((tool) => tool.name === name)?.description;

  test("a server echoing its env token in a description: every request carries the description redacted", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const config = await writeConfig(folder.dir, { plugins: [server(1)] });
    await using model = await startScriptedModel([{ toolCalls: [{ id: "sky", name: "sky_report", arguments: { city: "Paris" } }] }, { content: "done" }]);
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "weather?"], { cwd: folder.dir });
    expect(result.code).toBe(0);
    expect(model.requests).toHaveLength(2);
    for (const request of model.requests) expect(descriptionOf(request, "sky_report")).toEndWith(PLACEHOLDER);
    expect(model.requests.map((request) => request.text).join("\n")).not.toContain(TOKEN);
    // tools --json prints what the model is sent.
    const listed = await plugboard(["tools", "--json", "--config", config], { cwd: folder.dir });
    expect(listed.stdout).toContain(PLACEHOLDER);
    expect(listed.stdout).not.toContain(TOKEN);
  });

  test("with tool search: the search's answer and the found tool's schema are redacted, and a search for the token finds nothing", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const config = await writeConfig(folder.dir, { plugins: [server(300)] });
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "by_token", name: "tool_search", arguments: { query: TOKEN } }] },
      { toolCalls: [{ id: "by_words", name: "tool_search", arguments: { query: "weather tomorrow rain" } }] },
      { content: "done" },
    ]);
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "weather?"], { cwd: folder.dir });
    expect(result.code).toBe(0);
    // Nothing matches it, and the answer quoting the model's words takes the token out too.
    expect(toolResults(model, 1).by_token).toStartWith('No tool matches "[redacted: many SERVICE_TOKEN]".');
    expect(toolResults(model, 2).by_words).toContain(`- sky_report: ${"Tell tomorrow's weather for a city: temperature, rain and wind, hour by hour."} ${PLACEHOLDER}`);
    expect(descriptionOf(model.requests[2], "sky_report")).toEndWith(PLACEHOLDER);
    // The token is in the model's own call (the scripted search): no answer or tool carries it.
    const answers = model.requests.map((request) => JSON.stringify({ tools: request.body.tools, results: (request.body.messages ?? []).filter((m) => m.role === "tool") }));
    for (const answer of answers) expect(answer).not.toContain(TOKEN);
  });

  test("plugboard mcp serves the description redacted to its clients, as the model is sent it", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const config = await writeConfig(folder.dir, { plugins: [server(1)] });
    const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
    const transport = new StdioClientTransport({ command: process.execPath, args: [main, "mcp", "--config", config], cwd: folder.dir, env: cleanEnv(), stderr: "pipe" });
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((tool) => tool.name === "sky_report")?.description).toEndWith(PLACEHOLDER);
      expect(JSON.stringify(tools)).not.toContain(TOKEN);
    } finally {
      await client.close();
    }
  });
});
