/**
 * A real third-party MCP server from the npm registry (@modelcontextprotocol/server-everything)
 * mounted through a config file, driven through the real `plugboard` process.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dirname, join } from "node:path";
import { processesWhere, waitFor } from "@plugboard/test-helpers";
import { startScriptedModel } from "@plugboard/testing";
import { FIRST_PARTY, STACK_FRAME, plugboard, spawnPlugboard, tempFolder, watch, writeConfig } from "./helpers.ts";

const EVERYTHING = join(dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");
/** Every process of this file's servers carries it in its environment, so /proc finds them all. */
const MARKER = `plugboard-mcp-test-${crypto.randomUUID()}`;
const everything = { mcp: { command: process.execPath, args: [EVERYTHING, "stdio"], env: { PLUGBOARD_TEST_MARKER: MARKER } }, name: "everything" };

/** Each test starts real processes (plugboard, the server); a busy machine needs more than bun's default 5 s. */
const TIMEOUT = 60_000;

let dir = "";
let remove = async () => {};
let config = "";

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\n" }));
  config = await writeConfig(dir, { plugins: [...FIRST_PARTY, everything] });
});
afterAll(() => remove());

/** Pids of live processes whose environment carries the marker. */
const markedProcesses = () => processesWhere((process) => process.environ.some((entry) => entry.includes(MARKER)));

const call = (args: string[], env: Record<string, string> = {}) => plugboard(["call", "--config", config, ...args], { cwd: dir, env });

describe("mounting @modelcontextprotocol/server-everything", () => {
  test("plugboard tools --json lists its tools beside ours", async () => {
    const result = await plugboard(["tools", "--json", "--config", config], { cwd: dir });
    expect(result.code).toBe(0);
    const names = (JSON.parse(result.stdout) as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(names.slice(0, 6)).toEqual(["bash", "read_file", "write_file", "edit_file", "glob", "echo"]);
    expect(names).toContain("get-sum");
    const echo = (JSON.parse(result.stdout) as { function: { name: string; parameters: unknown } }[]).find((tool) => tool.function.name === "echo");
    expect(echo?.function.parameters).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    expect(markedProcesses()).toEqual([]);
  }, TIMEOUT);

  test("plugboard plugins lists the server like a plugin", async () => {
    const result = await plugboard(["plugins", "--config", config], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n\neverything \S+\n {2}tools: {7}echo, .*get-sum.*\n {2}permissions: \(none\)\n {2}from: {8}\S+ \S+ stdio \(an MCP server over stdio\)\n$/);
  }, TIMEOUT);

  test("plugboard check starts the server, lists it and leaves nothing running", async () => {
    const result = await plugboard(["check", "--config", config], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n {2}mcp: {7}1 \(everything \S+ over stdio\)\n/);
    expect(markedProcesses()).toEqual([]);
  }, TIMEOUT);

  test("plugboard call echo returns its text; {} is refused before the call", async () => {
    expect(await call(["echo", '{"message":"hi"}'])).toMatchObject({ code: 0, stdout: "Echo: hi\n" });
    const refused = await call(["echo", "{}"]);
    expect(refused).toMatchObject({ code: 1, stdout: "Error: Invalid arguments for echo: message: must be present\n" });
    expect(markedProcesses()).toEqual([]);
  }, TIMEOUT);

  test("its structured content reaches the model as JSON text, once; its resource links by name and URI", async () => {
    expect(await call(["get-structured-content", '{"location":"Chicago"}'])).toMatchObject({
      code: 0,
      stdout: '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}\n',
    });
    const links = await call(["get-resource-links", '{"count":2}']);
    expect(links.code).toBe(0);
    expect(links.stdout).toBe(
      [
        "Here are 2 resource links to resources available in this server:",
        "[resource link: Blob Resource 1 demo://resource/dynamic/blob/1 (text/plain): Resource 1: plaintext resource]",
        "[resource link: Text Resource 2 demo://resource/dynamic/text/2 (text/plain): Resource 2: plaintext resource]",
        "",
      ].join("\n"),
    );
  }, TIMEOUT);

  test("the server does not see the app's model key (only a minimal environment is passed)", async () => {
    const result = await call(["get-env"], { MODEL_API_KEY: "sk-must-not-leak", PLUGBOARD_MCP_TOKEN: "tok-must-not-leak" });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(MARKER);
    expect(result.stdout).not.toContain("sk-must-not-leak");
    expect(result.stdout).not.toContain("tok-must-not-leak");
  }, TIMEOUT);

  test("the scripted model drives plugboard run through one of its tools", async () => {
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "call_sum", name: "get-sum", arguments: { a: 2, b: 3 } }] },
      { content: "It is 5." },
    ]);
    const result = await plugboard(["run", "--config", config, "--base-url", model.baseURL, "add 2 and 3"], { cwd: dir });
    expect(result).toMatchObject({ code: 0, stdout: "It is 5.\n" });
    const toolMessage = model.requests[1]?.body.messages?.find((message) => message.role === "tool");
    expect(String(toolMessage?.content)).toContain("The sum of 2 and 3 is 5.");
    expect(result.stderr).toContain("[tool] get-sum");
    expect(markedProcesses()).toEqual([]);
  }, TIMEOUT);

  test("Ctrl-C during a long call ends the CLI and leaves no server process behind", async () => {
    await using model = await startScriptedModel([
      { toolCalls: [{ id: "call_long", name: "trigger-long-running-operation", arguments: { duration: 60, steps: 2 } }] },
      { content: "never reached" },
    ]);
    const child = spawnPlugboard(["run", "--config", config, "--base-url", model.baseURL, "wait a minute"], { cwd: dir });
    const output = watch(child);
    await waitFor("the model was asked and the MCP server started", () => model.requests.length > 0 && markedProcesses().length > 0, {
      timeoutMs: 20_000,
      everyMs: 20,
    });
    await Bun.sleep(500);
    child.kill("SIGINT");
    const result = await output.finished();
    expect(result.code).toBe(130);
    expect(model.requests).toHaveLength(1);
    expect(markedProcesses()).toEqual([]);
  }, TIMEOUT);

  test("SIGTERM ends plugboard mcp (143) and the servers it mounted", async () => {
    const child = spawnPlugboard(["mcp", "--config", config], { cwd: dir });
    const output = watch(child);
    await output.waitFor("stderr", "serving ");
    expect(markedProcesses()).not.toEqual([]);
    child.kill("SIGTERM");
    const result = await output.finished();
    expect(result.code).toBe(143);
    expect(markedProcesses()).toEqual([]);
  }, TIMEOUT);

  test("a server that fails to start is a config error naming it, with its stderr (exit 2)", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const broken = { mcp: { command: process.execPath, args: ["-e", "console.error('need GITHUB_TOKEN'); process.exit(1)"] }, name: "github" };
    const path = await writeConfig(folder.dir, { plugins: [broken] });
    const result = await plugboard(["tools", "--config", path], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("MCP server github failed to start or list its tools: ");
    expect(result.stderr).toContain("    need GITHUB_TOKEN\n");
    expect(result.stderr).toContain(`config: plugins[0] in ${path}`);
    expect(result.stderr).not.toContain(STACK_FRAME);
  }, TIMEOUT);

  describe.each([["auto"], ["off"]])("a server whose command does not exist, sandbox %s", (sandbox) => {
    test.each(["tools", "run hi", "check"])("plugboard %s: one config error naming it and the fix (exit 2)", async (command) => {
      await using folder = await tempFolder({ "workspace/.keep": "" });
      const ghost = { mcp: { command: "no-such-cmd" }, name: "ghost", permissions: [] };
      const path = await writeConfig(folder.dir, { plugins: [ghost], sandbox });
      const result = await plugboard([...command.split(" "), "--config", path], { cwd: folder.dir });
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: [
          "plugboard: MCP server ghost failed to start: its command no-such-cmd is not found on PATH.",
          `  config: plugins[0] in ${path}`,
          'Install no-such-cmd, or correct "command" in its "mcp" entry (a program on PATH, or a path to one).',
          "",
        ].join("\n"),
      });
    }, TIMEOUT);

    test("a command that is a file but not executable: said so, with chmod +x as the fix (exit 2)", async () => {
      await using folder = await tempFolder({ "workspace/.keep": "", "server.js": "console.log('hi')\n" });
      const command = join(folder.dir, "server.js");
      const path = await writeConfig(folder.dir, { plugins: [{ mcp: { command }, name: "ghost", permissions: [] }], sandbox });
      const result = await plugboard(["tools", "--config", path], { cwd: folder.dir });
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: [
          `plugboard: MCP server ghost failed to start: its command ${command} is not an executable file.`,
          `  config: plugins[0] in ${path}`,
          `Make it executable (chmod +x ${command}), or correct "command" in its "mcp" entry (a program on PATH, or a path to one).`,
          "",
        ].join("\n"),
      });
    }, TIMEOUT);
  });
});
