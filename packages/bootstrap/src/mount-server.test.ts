import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { buildFails, configWith, fixture, loadFails, removeTempDirs, tempDir, writeConfig } from "../test/temp-app.ts";
import { type App, buildApp } from "./index.ts";

// Real server processes: a busy machine needs more than bun's default 5 s per test.
setDefaultTimeout(30_000);

/** A small MCP server of @plugboard/mcp's tests, started with this very Bun. */
const SERVER = join(import.meta.dir, "../../mcp/test/fixture-server.ts");
const stdio = (extra: Record<string, unknown> = {}) => ({ mcp: { command: process.execPath, args: [SERVER] }, name: "fixture", ...extra });

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await removeTempDirs();
});

describe("buildApp: MCP servers in the plugins list", () => {
  test("a server's tools join the registry in config order, listed like a plugin", async () => {
    const app = await buildApp(
      await configWith([{ path: fixture("echo") }, stdio({ prefix: "fx_", permissions: ["fs.read"] }), { path: fixture("voices"), permissions: ["fs.read"] }]),
    );
    apps.push(app);
    expect(app.registry.names()).toEqual([
      "echo",
      "fx_echo", "fx_fail", "fx_fail_prefixed", "fx_mixed", "fx_slow", "fx_ticking", "fx_crash", "fx_spawn_child", "fx_pid", "fx_dotted_name",
      "shout", "whisper",
    ]);
    expect(app.servers).toEqual([
      expect.objectContaining({ name: "fixture", version: "1.0.0", transport: "stdio", target: `${process.execPath} ${SERVER}`, permissions: ["fs.read"] }),
    ]);
    expect(app.servers[0]?.tools[0]).toEqual({ name: "fx_echo", description: "Echo the message." });
    expect(app.toolGrants.get("fx_echo")).toEqual(["fs.read"]);
    expect(app.toolGrants.get("echo")).toEqual([]);
    expect(await app.runtime.execute("fx_echo", '{"message":"hi"}')).toEqual({ content: "hi", isError: false });
    expect((await app.runtime.execute("fx_echo", "{}")).content).toBe("Error: Invalid arguments for fx_echo: message: must be present");
  });

  test("a server that fails to start is a config error naming it, with its stderr", async () => {
    const config = await configWith([{ path: fixture("echo") }, stdio({ mcp: { command: process.execPath, args: [SERVER], env: { FIXTURE_FAIL_START: "1" } } })]);
    const error = await buildFails(config);
    expect(error.code).toBe("MCP_SERVER");
    expect(error.message).toStartWith("MCP server fixture failed to start or list its tools: ");
    expect(error.message).toContain(`  last lines of its stderr:\n    starting fixture server\n    boom: missing API token\n  config: plugins[1] in ${config.configPath}\n`);
  });

  test("a tool name a plugin already took is the duplicate error, naming prefix as the fix", async () => {
    const config = await configWith([{ path: fixture("echo") }, stdio()]);
    const error = await buildFails(config);
    expect(error.code).toBe("PLUGIN_DUPLICATE_TOOL");
    expect(error.message).toBe(
      [
        "Tool echo is provided twice: by @fixture/echo (plugins[0]) and by fixture (plugins[1]).",
        `  config: ${config.configPath}`,
        'Set a "prefix" on the MCP server\'s entry (plugins[1], e.g. "prefix": "fixture_") so its tools get names of their own, or remove one of them from the config.',
      ].join("\n"),
    );
  });

  test("the config refuses a malformed mcp entry, saying what to write", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, {
      plugins: [
        { mcp: { command: "x" } },
        { mcp: { command: "x", url: "http://127.0.0.1:1/mcp" }, name: "both" },
        { mcp: { url: "http://127.0.0.1:1/mcp", env: { A: "1" } }, name: "url-env" },
        { mcp: { command: "x" }, name: "opts", options: {} },
        { path: "./p", prefix: "p_" },
      ],
    });
    const error = await loadFails(path, { env: {}, cwd: dir });
    expect(error.message.split("\n").slice(1)).toEqual([
      '  plugins[0]: an "mcp" entry needs a "name", used in messages and listings',
      '  plugins[1].mcp: set exactly one of "command" (a server started over stdio) or "url" (a Streamable HTTP server)',
      '  plugins[2].mcp: "args" and "env" belong to a "command"; a "url" server takes "headers"',
      '  plugins[3]: an "mcp" entry takes no "options"',
      '  plugins[4]: "name" and "prefix" belong to an "mcp" entry; a plugin\'s name comes from its manifest',
    ]);
  });
});
