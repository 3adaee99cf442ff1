/**
 * `plugboard mcp login NAME` / `logout NAME` against an OAuth authorization server and a
 * protected MCP server on 127.0.0.1 (the SDK's own parts): without a login the server is a
 * config error saying to log in; the browser step is done here by following the printed
 * address; then calls carry the token, kept 0600 in the user's config folder; logout forgets it.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import { type OAuthServers, startOAuthServers } from "../../../packages/mcp/test/oauth-servers.ts";
import { startScriptedModel } from "@plugboard/testing";
import { FIRST_PARTY, plugboard, spawnPlugboard, STACK_FRAME, tempFolder, toolResults, watch, writeConfig } from "./helpers.ts";

setDefaultTimeout(30_000);

let servers: OAuthServers;
let folder: Awaited<ReturnType<typeof tempFolder>>;
let config = "";
let env: Record<string, string> = {};

beforeAll(async () => {
  servers = await startOAuthServers(3600);
  folder = await tempFolder({ "workspace/.keep": "" });
  config = await writeConfig(folder.dir, { plugins: [{ mcp: { url: servers.mcpUrl }, name: "remote" }] });
  env = { XDG_CONFIG_HOME: join(folder.dir, "config") };
});
afterAll(async () => {
  await servers.close();
  await folder.remove();
});

const run = (args: string[]) => plugboard([...args, "--config", config], { cwd: folder.dir, env });

/** `plugboard mcp login remote`, the browser step done by following the printed address: what it printed, and the tokens' file. */
async function logIn(config: string, dir: string, env: Record<string, string>) {
  const child = spawnPlugboard(["mcp", "login", "remote", "--config", config], { cwd: dir, env });
  const output = watch(child);
  await output.waitFor("stderr", "\n", 2);
  const address = /Open this address in a browser to log in to remote:\n {2}(\S+)\n/.exec(output.text().stderr)?.[1];
  expect(address).toBeDefined();
  // The browser: the authorization server redirects it to plugboard's callback on 127.0.0.1.
  let next = address ?? "";
  for (let hop = 0; hop < 5; hop++) {
    const response = await fetch(next, { redirect: "manual" });
    const location = response.headers.get("location");
    if (location === null) break;
    next = new URL(location, next).href;
  }
  expect(next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/);
  return { result: await output.finished(), file: join(env.XDG_CONFIG_HOME ?? "", "plugboard/mcp-auth/remote.json") };
}

describe("plugboard mcp login / logout", () => {
  test("without a login: a config error saying how to log in (exit 2)", async () => {
    const result = await run(["tools"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("MCP server remote failed to start or list its tools: it requires a login: run plugboard mcp login remote");
    expect(result.stderr).not.toContain(STACK_FRAME);
  });

  test("login prints the address; once the browser is through, calls carry the token; logout forgets it", async () => {
    const { result, file } = await logIn(config, folder.dir, env);
    expect(result).toMatchObject({ code: 0, stdout: `Logged in to remote; its tokens are in ${file}\n` });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(join(env.XDG_CONFIG_HOME ?? "", "plugboard/mcp-auth"))).mode & 0o777).toBe(0o700);

    const call = await run(["call", "whoami"]);
    expect(call.code).toBe(0);
    expect(call.stdout).toStartWith("client ");
    expect(servers.calls.length).toBeGreaterThan(0);

    // The tokens kept for the server are the app's secrets: a command printing their file shows the model placeholders.
    const token = servers.calls.at(-1) ?? "";
    expect(token.length).toBeGreaterThan(8);
    const withBash = await writeConfig(folder.dir, { plugins: [...FIRST_PARTY.slice(0, 1), { mcp: { url: servers.mcpUrl }, name: "remote" }] });
    await using model = await startScriptedModel([{ toolCalls: [{ id: "cat", name: "bash", arguments: { command: `cat '${file}'` } }] }, { content: "done" }]);
    const printed = await plugboard(["run", "--config", withBash, "--base-url", model.baseURL, "show the tokens"], { cwd: folder.dir, env });
    expect(printed.code).toBe(0);
    const shown = toolResults(model).cat ?? "";
    expect(shown).toContain('"access_token": "[redacted: remote OAuth token]"');
    expect(shown).toContain('"refresh_token": "[redacted: remote OAuth token]"');
    expect(model.requests.map((request) => request.text).join("\n")).not.toContain(token);
    // The person's own call of the same command shows the file as it is: the twin.
    const own = await plugboard(["call", "--config", withBash, "bash", JSON.stringify({ command: `cat '${file}'` })], { cwd: folder.dir, env });
    expect(own.stdout).toContain(token);

    expect(await run(["mcp", "logout", "remote"])).toMatchObject({ code: 0, stdout: "Logged out of remote: its tokens are deleted\n" });
    expect(await Bun.file(file).exists()).toBe(false);
    expect((await run(["tools"])).stderr).toContain("run plugboard mcp login remote");
  });

  test("a name the config does not have, or a stdio server: said so (exit 2)", async () => {
    const result = await run(["mcp", "login", "nope"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("has no MCP server named nope (it has: remote)");
  });
});

describe("a token refreshed during the session", () => {
  test("is kept from the model as the first was: a command printing the tokens' file after the refresh shows placeholders", async () => {
    // The access token ends while bash runs (after the model's first request, however slow the
    // machine): the session's second call finds it expired, and the SDK refreshes it.
    const refreshing = await startOAuthServers(3600);
    await using dir = await tempFolder({ "workspace/.keep": "" });
    try {
      const shortEnv = { XDG_CONFIG_HOME: join(dir.dir, "config") };
      // The taint is off: this is about redaction, and whoami after bash would be asked for.
      const withBash = await writeConfig(dir.dir, { plugins: [...FIRST_PARTY.slice(0, 1), { mcp: { url: refreshing.mcpUrl }, name: "remote" }], policy: { taint: "off" } });
      const { result, file } = await logIn(withBash, dir.dir, shortEnv);
      expect(result.code).toBe(0);
      const cat = { id: "cat", name: "bash", arguments: { command: `cat '${file}'` } };
      await using model = await startScriptedModel([
        { toolCalls: [{ id: "wait", name: "bash", arguments: { command: "sleep 1" } }] },
        { toolCalls: [{ id: "who", name: "whoami", arguments: {} }] },
        { toolCalls: [cat] },
        { content: "done" },
      ]);
      const running = plugboard(["run", "--config", withBash, "--base-url", model.baseURL, "show the tokens"], { cwd: dir.dir, env: shortEnv });
      await model.waitForRequests(1, 30_000);
      refreshing.provider.expireAll();
      const printed = await running;
      expect(printed.code).toBe(0);
      expect(refreshing.provider.refreshes).toHaveLength(1);
      const refreshed = JSON.parse(await Bun.file(file).text()).tokens as { access_token: string; refresh_token: string };
      expect(refreshing.calls.at(-1)).toBe(refreshed.access_token);
      const shown = toolResults(model).cat ?? "";
      expect(shown).toContain('"access_token": "[redacted: remote OAuth token]"');
      expect(shown).toContain('"refresh_token": "[redacted: remote OAuth token]"');
      const sent = model.requests.map((request) => request.text).join("\n");
      expect(sent).not.toContain(refreshed.access_token);
      expect(sent).not.toContain(refreshed.refresh_token);
    } finally {
      await refreshing.close();
    }
  });
});
