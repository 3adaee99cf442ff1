import { afterEach, describe, expect, test } from "bun:test";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { loadFails, removeTempDirs, tempDir, writeConfig } from "../test/temp-config.ts";
import { loadConfig } from "./index.ts";

afterEach(removeTempDirs);

const minimal = { plugins: [] };

describe("reading the file", () => {
  test("a missing file", async () => {
    const dir = await tempDir();
    const error = await loadFails(join(dir, "nope.json"), { env: {} });
    expect(error.code).toBe("CONFIG_NOT_FOUND");
    expect(error.message).toBe(`Config file not found: ${join(dir, "nope.json")}\nCreate it, or point to another file (--config FILE).`);
  });

  test("a folder instead of a file", async () => {
    const dir = await tempDir();
    const error = await loadFails(dir, { env: {} });
    expect(error.code).toBe("CONFIG_NOT_FOUND");
    expect(error.message).toContain(`Config path is a folder, not a file: ${dir}`);
  });

  test("comments and trailing commas are allowed", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, '// my app\n{\n  "maxSteps": 5, /* few */\n  "plugins": [],\n}\n');
    const config = await loadConfig(path, { env: {} });
    expect(config.maxSteps).toBe(5);
  });

  test("JSON syntax errors name the file, the line and the column", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, '{\n  "maxSteps": 5\n  "plugins": [],\n}\n');
    const error = await loadFails(path, { env: {} });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message).toBe(`Config file ${path} is not valid JSON: line 3, column 3: expected ",", found "\\"plugins\\""\nFix the JSON syntax there.`);
  });

  test("a relative config path is resolved against cwd", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, "app"));
    await writeConfig(join(dir, "app"), minimal);
    const config = await loadConfig("app/plugboard.json", { env: {}, cwd: dir });
    expect(config.configPath).toBe(join(dir, "app/plugboard.json"));
  });
});

describe("validation", () => {
  test("every problem, one per line, each with the path of its key", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, {
      $schema: "https://example.com/plugboard.schema.json",
      workspace: 3,
      model: { name: "", baseUrl: "http://localhost" },
      maxSteps: 0,
      plugins: [
        { package: "@plugboard/plugin-bash", path: "./bash" },
        { package: "./local-tool" },
        { path: "./tools/x", permissions: ["fs.read", "disk"] },
        { package: "Not A Name", options: { a: 1 } },
        { permission: ["fs.read"] },
      ],
      verbose: true,
    });
    const error = await loadFails(path, { env: {} });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message.split("\n")).toEqual([
      `Invalid config file ${path}:`,
      "  workspace: expected a folder path, got 3",
      "  model.name: expected a model name, got an empty string",
      "  model.baseUrl: unknown key (allowed keys: name, baseURL, dialect)",
      "  maxSteps: expected at least 1, got 0",
      '  plugins[0]: set exactly one of "package" (an installed npm package), "path" (a plugin folder) or "mcp" (an MCP server)',
      '  plugins[1].package: ./local-tool is a folder, not a package name; write it as "path": ./local-tool',
      '  plugins[2].permissions[1]: expected one of fs.read, fs.write, process.spawn, network, got "disk"',
      '  plugins[3].package: expected an npm package name such as @plugboard/plugin-bash, got "Not A Name"',
      "  plugins[4].permission: unknown key (allowed keys: package, path, mcp, name, prefix, permissions, network, read, write, options, sandbox, trust)",
      "  verbose: unknown key (allowed keys: $schema, workspace, model, maxSteps, tools, systemPrompt, sandbox, plugins, policy, hooks, audit, protect, protectDepth, results, limits)",
    ]);
  });

  test("limits: sizes with a unit or in bytes, defaults for what is not set, and each bad value named", async () => {
    const dir = await tempDir();
    const good = await writeConfig(dir, { plugins: [], limits: { processes: 40, memory: "64 MiB", tmp: 8388608 } }, "good.json");
    expect((await loadConfig(good, { env: {} })).limits).toEqual({ processes: 40, memory: 64 * 1024 ** 2, tmp: 8 * 1024 ** 2 });
    const some = await writeConfig(dir, { plugins: [], limits: { tmp: "1.5 GiB" } }, "some.json");
    expect((await loadConfig(some, { env: {} })).limits).toEqual({ processes: 512, memory: 2 * 1024 ** 3, tmp: 1.5 * 1024 ** 3 });
    const bad = await writeConfig(dir, { plugins: [], limits: { processes: 3, memory: "lots", tmp: "2 GB of it", swap: 1 } }, "bad.json");
    const error = await loadFails(bad, { env: {} });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message.split("\n").slice(1)).toEqual([
      "  limits.processes: expected at least 16 (a plugin's host needs some for its own threads), got 3",
      '  limits.memory: expected a size such as "256 MiB" or "2 GiB" (units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB), or a number of bytes, got "lots"',
      '  limits.tmp: expected a size such as "256 MiB" or "2 GiB" (units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB), or a number of bytes, got "2 GB of it"',
      "  limits.swap: unknown key (allowed keys: processes, memory, tmp)",
    ]);
  });

  test("policy: every problem with the path of its key", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, {
      plugins: [],
      policy: {
        default: "maybe",
        rules: [
          { tool: "bash", action: "ask" },
          { tool: "", args: { command: 3 }, action: "allow" },
          { tool: "write_file", args: ["path"], action: "deny", why: "x" },
          { args: {} },
        ],
      },
      audit: "",
    });
    const error = await loadFails(path, { env: {} });
    expect(error.message.split("\n").slice(1)).toEqual([
      '  policy.default: expected one of allow, ask, deny, got "maybe"',
      "  policy.rules[1].tool: expected a tool name or wildcard pattern such as bash or *_file, got an empty string",
      '  policy.rules[1].args.command: expected a wildcard pattern such as "git status*", got 3',
      "  policy.rules[2].args: expected an object of argument name → pattern, got Array",
      "  policy.rules[2].why: unknown key (allowed keys: tool, args, action)",
      "  policy.rules[3].tool: required",
      "  policy.rules[3].action: required",
      "  audit: expected a file path, got an empty string",
    ]);
  });

  test("policy and audit: the default allows every call; audit is relative to the config file", async () => {
    const dir = await tempDir();
    const none = await loadConfig(await writeConfig(dir, { plugins: [] }), { env: {} });
    expect(none.policy).toEqual({ default: "allow", rules: [] });
    expect(none.audit).toBeUndefined();
    const rules = [{ tool: "write_file", args: { path: "secrets/*" }, action: "deny" as const }];
    const some = await loadConfig(await writeConfig(dir, { plugins: [], policy: { rules }, audit: "logs/audit.jsonl" }), { env: {} });
    expect(some.policy).toEqual({ default: "allow", rules });
    expect(some.audit).toBe(join(dir, "logs/audit.jsonl"));
  });

  test("taint: ask, deny or off in the policy; trust: trusted or untrusted on an MCP entry only", async () => {
    const dir = await tempDir();
    const server = { mcp: { url: "http://127.0.0.1:9/mcp" }, name: "docs", trust: "trusted" };
    const good = await loadConfig(await writeConfig(dir, { plugins: [server], policy: { taint: "deny" } }), { env: {} });
    expect(good.policy).toEqual({ default: "allow", rules: [], taint: "deny" });
    expect(good.plugins[0]).toMatchObject({ name: "docs", trust: "trusted" });
    const path = await writeConfig(dir, {
      plugins: [{ ...server, trust: "yes" }, { path: "./fetch", permissions: ["network"], trust: "trusted" }],
      policy: { taint: "warn" },
    });
    expect((await loadFails(path, { env: {} })).message.split("\n").slice(1)).toEqual([
      '  plugins[0].trust: expected one of trusted, untrusted, got "yes"',
      '  plugins[1]: "trust" belongs to an "mcp" entry; a plugin\'s results are untrusted exactly when it is granted "network"',
      '  policy.taint: expected one of ask, deny, off, got "warn"',
    ]);
  });

  test("tools: searchOver is a whole number of tools, pinned a list of names; repeats are dropped", async () => {
    const dir = await tempDir();
    const bad = await writeConfig(dir, { plugins: [], tools: { searchOver: -1, pinned: ["read_file", ""], over: 3 } });
    expect((await loadFails(bad, { env: {} })).message.split("\n").slice(1)).toEqual([
      "  tools.searchOver: expected 0 or more, got -1",
      "  tools.pinned[1]: expected a tool name such as read_file, got an empty string",
      "  tools.over: unknown key (allowed keys: searchOver, pinned)",
    ]);
    const fractional = await writeConfig(dir, { plugins: [], tools: { searchOver: 2.5 } });
    expect((await loadFails(fractional, { env: {} })).message).toContain("tools.searchOver: expected a whole number of tools, got 2.5");
    const good = await loadConfig(await writeConfig(dir, { plugins: [], tools: { searchOver: 10, pinned: ["glob", "read_file", "glob"] } }), { env: {} });
    expect(good.tools).toEqual({ searchOver: 10, pinned: ["glob", "read_file"] });
  });

  test("protectDepth: a whole number of folder levels from 0 to 64, 8 when unset", async () => {
    const dir = await tempDir();
    for (const [value, problem] of [
      [65, "protectDepth: expected at most 64, got 65"],
      [-1, "protectDepth: expected 0 or more, got -1"],
      [2.5, "protectDepth: expected a whole number of folder levels, got 2.5"],
      ["8", 'protectDepth: expected a whole number of folder levels, got "8"'],
    ] as const) {
      expect((await loadFails(await writeConfig(dir, { plugins: [], protectDepth: value }), { env: {} })).message).toContain(`  ${problem}`);
    }
    expect((await loadConfig(await writeConfig(dir, { plugins: [], protectDepth: 0 }), { env: {} })).protectDepth).toBe(0);
    expect((await loadConfig(await writeConfig(dir, { plugins: [] }), { env: {} })).protectDepth).toBe(8);
  });

  test("plugins is required; maxSteps must be an integer up to 1000", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, { maxSteps: 1001.5 });
    const error = await loadFails(path, { env: {} });
    expect(error.message.split("\n").slice(1)).toEqual([
      "  maxSteps: expected an integer, got 1001.5",
      "  plugins: required",
    ]);
  });

  test("network: a list of hosts narrows a network grant, for plugins and stdio MCP servers", async () => {
    const dir = await tempDir();
    const network = ["api.example.com", "*.github.com", "localhost:4873", "[::1]:8080"];
    const bash = { path: "./bash", permissions: ["process.spawn", "network"], network };
    const server = { mcp: { command: "npx", args: ["-y", "x"] }, name: "x", permissions: ["network"], network: ["registry.npmjs.org"] };
    const config = await loadConfig(await writeConfig(dir, { plugins: [bash, server] }), { env: {} });
    expect(config.plugins[0]).toMatchObject({ path: "./bash", network });
    expect(config.plugins[1]).toMatchObject({ name: "x", network: ["registry.npmjs.org"] });
  });

  test("network: a list without the network grant, an empty list, a bad host or a url server's list is a config error with the fix", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, {
      plugins: [
        { path: "./a", permissions: ["process.spawn"], network: ["api.example.com"] },
        { path: "./b", permissions: ["network"], network: [] },
        { path: "./c", permissions: ["network"], network: ["https://api.example.com", "*.10.0.0.1", "host:99999", "a*.example.com"] },
        { mcp: { url: "http://127.0.0.1:9/mcp" }, name: "web", permissions: ["network"], network: ["a.example"] },
      ],
    });
    const error = await loadFails(path, { env: {} });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message.split("\n").slice(1)).toEqual([
      '  plugins[0]: "network" lists the hosts a "network" grant may reach, and this entry does not grant "network": add "network" to its "permissions"',
      '  plugins[1]: an empty "network" list reaches no host: remove "network" from "permissions" instead',
      '  plugins[2].network[0]: expected a host such as api.example.com, *.github.com or localhost:4873, got "https://api.example.com"',
      '  plugins[2].network[1]: "*." goes before a domain name, not an address, in "*.10.0.0.1"',
      '  plugins[2].network[2]: expected a port from 1 to 65535 in "host:99999"',
      '  plugins[2].network[3]: expected a host such as api.example.com, *.github.com or localhost:4873, got "a*.example.com"',
      '  plugins[3]: "network" narrows a confined process\'s connections; a "url" server is reached by the app itself',
    ]);
  });

  test("read and write: absolute paths or ~, for plugins and stdio MCP servers, ~ made the HOME the app has", async () => {
    const dir = await tempDir();
    const plugin = { path: "./notes", read: ["/opt/datasets", "~"], write: ["~/notes", "/srv/cache/x.db"] };
    const server = { mcp: { command: "node", args: ["/opt/mcp/weather/index.js"] }, name: "weather", read: ["/opt/mcp/weather"] };
    const path = await writeConfig(dir, { plugins: [plugin, server] });
    const config = await loadConfig(path, { env: { HOME: "/home/me" } });
    expect(config.plugins[0]).toMatchObject({ read: ["/opt/datasets", "/home/me"], write: ["/home/me/notes", "/srv/cache/x.db"] });
    expect(config.plugins[1]).toMatchObject({ name: "weather", read: ["/opt/mcp/weather"] });
  });

  test("read and write: a relative path, a ~user path or a url server's grant is a config error with the fix", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, {
      plugins: [
        { path: "./a", read: ["data"], write: ["~bob/x"] },
        { mcp: { url: "http://127.0.0.1:9/mcp" }, name: "web", write: ["/srv/x"] },
      ],
    });
    const error = await loadFails(path, { env: {} });
    expect(error.code).toBe("CONFIG_INVALID");
    expect(error.message.split("\n").slice(1)).toEqual([
      '  plugins[0].read[0]: expected an absolute path such as /opt/mcp/weather or ~/.cache/my-tool, got "data"',
      '  plugins[0].write[0]: expected an absolute path such as /opt/mcp/weather or ~/.cache/my-tool, got "~bob/x"',
      '  plugins[1]: "read" and "write" grant paths to a confined process; a "url" server is reached by the app itself',
    ]);
  });

  test("an entry's permissions default to none and its options to an empty object", async () => {
    const dir = await tempDir();
    const path = await writeConfig(dir, { plugins: [{ package: "@plugboard/plugin-glob" }, { path: "./x", permissions: ["network"], options: { a: 1 } }] });
    const config = await loadConfig(path, { env: {} });
    expect(config.plugins).toEqual([
      { package: "@plugboard/plugin-glob", permissions: [], options: {} },
      { path: "./x", permissions: ["network"], options: { a: 1 } },
    ]);
  });
});
