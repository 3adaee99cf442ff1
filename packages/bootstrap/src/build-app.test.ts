import { afterEach, describe, expect, test } from "bun:test";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { buildFails, configWith, fixture, removeTempDirs, tempDir } from "../test/temp-app.ts";
import { buildApp } from "./index.ts";

afterEach(removeTempDirs);

const imported = (flag: string) => Reflect.get(globalThis, flag);
const manifestOf = (name: string) => join(fixture(name), "plugboard.plugin.json");

describe("buildApp: success", () => {
  test("a manifest written for contract 1.0 with an options copy still loads; the entry's schema decides", async () => {
    const app = await buildApp(await configWith([{ path: fixture("legacy-options"), options: { prefix: "> " } }]));
    expect((await app.runtime.execute("echo", '{"text":"hi"}')).content).toBe("> hi");
    const defaults = await buildApp(await configWith([{ path: fixture("legacy-options") }]));
    // The manifest's stale default ("!") is never read: echo's own schema default ("") applies.
    expect((await defaults.runtime.execute("echo", '{"text":"hi"}')).content).toBe("hi");
  });

  test("two plugins: tools reach the model in config order, with owners and validated options", async () => {
    const config = await configWith([
      { path: fixture("voices"), permissions: ["fs.read"], options: { exclamations: 3 } },
      { path: fixture("echo") },
    ]);
    const app = await buildApp(config);

    expect(app.registry.names()).toEqual(["shout", "whisper", "echo"]);
    expect(app.runtime.schemas().map((tool) => tool.function.name)).toEqual(["shout", "whisper", "echo"]);
    expect(app.registry.get("shout")?.owner).toBe("@fixture/voices");
    expect(app.registry.get("echo")?.owner).toBe("@fixture/echo");
    // echo's prefix defaults to "": filled in before the plugin built its tool.
    expect((await app.runtime.execute("echo", '{"text":"hi"}')).content).toBe("hi");
    expect(app.plugins.map((plugin) => [plugin.name, plugin.version, plugin.permissions])).toEqual([
      ["@fixture/voices", "0.1.0", ["fs.read"]],
      ["@fixture/echo", "0.1.0", []],
    ]);
    expect(app.plugins[0]?.tools).toEqual([
      { name: "shout", description: "Upper-case the text." },
      { name: "whisper", description: "Lower-case the text." },
    ]);
    expect(app.plugins[0]?.manifestPath).toBe(manifestOf("voices"));
    expect(app.workspace.root).toBe(config.workspace);
    expect(await app.runtime.execute("shout", '{"text":"hi"}')).toEqual({ content: "HI!!!", isError: false });
    expect((await app.runtime.execute("whisper", '{"text":"HI"}')).content).toBe('hi (options: {"exclamations":3})');
    // The config keeps what the file said; defaults live only in what the plugin received.
    expect(config.plugins[1]).toMatchObject({ options: {} });
  });

  test("reversing the config reverses the tools", async () => {
    const app = await buildApp(
      await configWith([{ path: fixture("echo") }, { path: fixture("voices"), permissions: ["fs.read"] }]),
    );
    expect(app.runtime.schemas().map((tool) => tool.function.name)).toEqual(["echo", "shout", "whisper"]);
    expect(await app.runtime.execute("shout", '{"text":"a"}')).toEqual({ content: "A!", isError: false });
  });

  test("no plugins: an empty runtime where every tool is unknown", async () => {
    const app = await buildApp(await configWith([]));
    expect(app.registry.size).toBe(0);
    expect((await app.runtime.execute("echo", "{}")).content).toBe("Error: Unknown tool: echo (no tools are enabled)");
  });
});

describe("buildApp: each failure names the plugin, the file and the fix, and builds nothing", () => {
  test("manifest missing", async () => {
    const error = await buildFails(await configWith([{ path: fixture("no-manifest") }]));
    expect(error.code).toBe("PLUGIN_MANIFEST");
    expect(error.message).toContain(`Plugin ${fixture("no-manifest")} has no manifest.`);
    expect(error.message).toContain(`missing: ${manifestOf("no-manifest")}`);
    expect(error.message).toContain("every plugin ships plugboard.plugin.json at its root");
    expect(imported("noManifestFixtureImported")).toBeUndefined();
  });

  test("manifest invalid: every problem with its key path, and no code imported", async () => {
    const config = await configWith([{ path: fixture("invalid-manifest") }]);
    const error = await buildFails(config);
    expect(error.code).toBe("PLUGIN_MANIFEST");
    expect(error.message.split("\n")).toEqual([
      `Plugin @fixture/invalid-manifest has an invalid manifest ${manifestOf("invalid-manifest")}:`,
      "  version: required",
      '  tools[0].name: expected 1-64 letters, digits, "_" or "-", got "bad name!"',
      '  permissions[1]: expected one of fs.read, fs.write, process.spawn, network, got "fs.delete"',
      "  permision: unknown key (allowed keys: $schema, name, version, contract, entry, tools, permissions, optionalPermissions, options)",
      `  config: plugins[0] in ${config.configPath}`,
      "Fix these keys in the manifest (or ask the plugin's author to).",
    ]);
    expect(imported("invalidManifestFixtureImported")).toBeUndefined();
  });

  test("manifest that is not JSON: line and column", async () => {
    const dir = await tempDir();
    const manifest = join(dir, "plugin/plugboard.plugin.json");
    await mkdir(join(dir, "plugin"));
    await writeFile(manifest, '{\n  "name": "broken",\n  "tools": [{ "name": "x" "description": "X." }],\n}\n');
    const error = await buildFails(await configWith([{ path: "./plugin" }], dir));
    expect(error.code).toBe("PLUGIN_MANIFEST");
    expect(error.message).toContain(
      `Plugin ./plugin: ${manifest} is not valid JSON: line 3, column 27: expected ",", found "\\"description\\""`,
    );
  });

  test("name or version differ from package.json", async () => {
    const error = await buildFails(await configWith([{ path: fixture("version-mismatch") }]));
    expect(error.code).toBe("PLUGIN_VERSION");
    expect(error.message).toContain(
      "its manifest says @fixture/version-mismatch@0.2.0 but its package.json says @fixture/version-mismatch@0.1.0",
    );
    expect(error.message).toContain(`package.json: ${join(fixture("version-mismatch"), "package.json")}`);
    expect(error.message).toContain(`Make the manifest's "name" and "version" equal package.json's.`);
    expect(imported("versionMismatchFixtureImported")).toBeUndefined();
  });

  test("contract not satisfied: both versions named, checked before the keys it may not know", async () => {
    const error = await buildFails(await configWith([{ path: fixture("future-contract") }]));
    expect(error.code).toBe("PLUGIN_CONTRACT");
    expect(error.message).toContain("Plugin @fixture/future-contract supports contract ^2.0.0, this Plugboard provides 1.2.0.");
    expect(error.message).toContain(`manifest: ${manifestOf("future-contract")}`);
    expect(error.message).toContain("Install a version of @fixture/future-contract made for contract 1.x");
    expect(imported("futureContractFixtureImported")).toBeUndefined();
  });

  test("every manifest is checked before any plugin's code is imported", async () => {
    const error = await buildFails(
      await configWith([{ path: fixture("import-marker") }, { path: fixture("future-contract") }]),
    );
    expect(error.code).toBe("PLUGIN_CONTRACT");
    expect(imported("importMarkerFixtureImported")).toBeUndefined();
  });

  test("permission not granted: the exact permissions to set, where, and what they allow", async () => {
    const config = await configWith([{ path: fixture("echo") }, { path: fixture("needs-write"), permissions: ["fs.read"] }]);
    const error = await buildFails(config);
    expect(error.code).toBe("PLUGIN_PERMISSION");
    expect(error.message.split("\n")).toEqual([
      "Plugin @fixture/needs-write needs permission fs.write, which its config entry does not grant.",
      `  manifest: ${manifestOf("needs-write")}`,
      `  config: plugins[1] in ${config.configPath}`,
      `To allow it, set "permissions": ["fs.read", "fs.write"] in plugins[1] of ${config.configPath}. This lets @fixture/needs-write create, change and delete files in the workspace.`,
    ]);
  });

  test("a grant the manifest neither needs nor offers is a config error naming the plugin", async () => {
    const config = await configWith([{ path: fixture("voices"), permissions: ["fs.read", "network", "process.spawn"] }]);
    const error = await buildFails(config);
    expect(error.code).toBe("PLUGIN_PERMISSION");
    expect(error.message.split("\n")).toEqual([
      "Plugin @fixture/voices does not ask for permissions network, process.spawn, which its config entry grants.",
      `  manifest: ${manifestOf("voices")} (permissions and optionalPermissions: fs.read)`,
      `  config: plugins[0] in ${config.configPath}`,
      `Remove network, process.spawn from "permissions" in plugins[0] of ${config.configPath}: a plugin is granted only what its manifest lists.`,
    ]);
  });

  test("a grant from the manifest's optionalPermissions is accepted (bash offers network)", async () => {
    const bash = join(import.meta.dir, "../../../plugins/bash");
    const app = await buildApp(await configWith([{ path: bash, permissions: ["process.spawn", "fs.read", "fs.write", "network"] }]));
    expect(app.registry.names()).toEqual(["bash"]);
  });

  test("no permission granted at all: every missing one is listed", async () => {
    const error = await buildFails(await configWith([{ path: fixture("needs-write") }]));
    expect(error.message).toContain("needs permissions fs.read, fs.write,");
    expect(error.message).toContain('set "permissions": ["fs.read", "fs.write"] in plugins[0]');
    expect(error.message).toContain("read files in the workspace and create, change and delete files in the workspace");
  });

  test("entry import throws: the error is wrapped with the plugin's name", async () => {
    const error = await buildFails(await configWith([{ path: fixture("import-throws") }]));
    expect(error.code).toBe("PLUGIN_IMPORT");
    expect(error.message).toContain(
      "Plugin @fixture/import-throws failed to load: importing its entry threw: boom: PLUGIN_TOKEN is not set",
    );
    expect(error.message).toContain(`entry: ${join(fixture("import-throws"), "src/index.ts")}`);
    expect((error.cause as Error).message).toBe("boom: PLUGIN_TOKEN is not set");
  });

  // A plugin's entry is required when it can be (cheaper than an import on a process's first
  // load); an entry that awaits at its top level, or a CommonJS one, is imported as before.
  for (const sandbox of ["off", "auto"] as const) {
    test(`an entry that awaits at its top level loads, and runs once (sandbox ${sandbox})`, async () => {
      Reflect.deleteProperty(globalThis, "awaitsAtTopRuns");
      const app = await buildApp(await configWith([{ path: fixture("awaits-at-top") }], undefined, sandbox));
      try {
        expect(await app.runtime.execute("awaited", "{}")).toEqual({ content: "awaited 1", isError: false });
      } finally {
        await app.close();
      }
    });

    test(`a CommonJS entry's module.exports is its plugin (sandbox ${sandbox})`, async () => {
      const app = await buildApp(await configWith([{ path: fixture("common-js") }], undefined, sandbox));
      try {
        expect(await app.runtime.execute("common", "{}")).toEqual({ content: "from module.exports", isError: false });
      } finally {
        await app.close();
      }
    });
  }

  test("default export is not a plugin", async () => {
    const error = await buildFails(await configWith([{ path: fixture("not-a-plugin") }]));
    expect(error.code).toBe("PLUGIN_IMPORT");
    expect(error.message).toContain("Plugin @fixture/not-a-plugin: its entry does not export a plugin (its default export has no tools function).");
    expect(error.message).toContain("The entry's default export must be definePlugin({ options, tools }) from @plugboard/core.");
  });

  test("invalid options: defaults applied first, each problem with its path", async () => {
    const config = await configWith([
      { path: fixture("voices"), permissions: ["fs.read"] },
      { path: fixture("echo"), options: { prefix: 5, colour: "red" } },
    ]);
    const error = await buildFails(config);
    expect(error.code).toBe("PLUGIN_OPTIONS");
    expect(error.message.split("\n")).toEqual([
      "Plugin @fixture/echo has invalid options:",
      "  plugins[1].options.colour: unknown option (known options: prefix)",
      "  plugins[1].options.prefix: expected string",
      `  config: plugins[1] in ${config.configPath}`,
      `Fix "options" in plugins[1] of ${config.configPath}; the plugin's README lists its options.`,
    ]);
  });

  test("a closed options schema (additionalProperties: false) names an undeclared key once, as an unknown option", async () => {
    const config = await configWith([{ path: fixture("refuses-options"), options: { mni: 1 } }]);
    const error = await buildFails(config);
    expect(error.message.split("\n").slice(0, 3)).toEqual([
      "Plugin @fixture/refuses-options has invalid options:",
      "  plugins[0].options.mni: unknown option (known options: min, max)",
      `  config: plugins[0] in ${config.configPath}`,
    ]);
  });

  test("options outside the plugin's schema bounds", async () => {
    const config = await configWith([{ path: fixture("voices"), permissions: ["fs.read"], options: { exclamations: -1 } }]);
    const error = await buildFails(config);
    expect(error.message).toContain("plugins[0].options.exclamations: expected integer to be greater or equal to 0");
  });

  test("options the plugin itself refuses (a PluginOptionsError from its tools function)", async () => {
    const config = await configWith([{ path: fixture("refuses-options"), options: { min: 5, max: 1 } }]);
    const error = await buildFails(config);
    expect(error.code).toBe("PLUGIN_OPTIONS");
    expect(error.message.split("\n").slice(0, 2)).toEqual([
      "Plugin @fixture/refuses-options has invalid options:",
      "  min (5) must not exceed max (1).",
    ]);
  });

  test("tools differ from the manifest: missing and extra names", async () => {
    const error = await buildFails(await configWith([{ path: fixture("tools-mismatch") }]));
    expect(error.code).toBe("PLUGIN_TOOLS");
    expect(error.message).toContain("Plugin @fixture/tools-mismatch returned tools that differ from its manifest's list.");
    expect(error.message).toContain("  missing: beta (in the manifest, not returned)\n  extra: gamma (returned, not in the manifest)");
    expect(error.message).toContain(`manifest: ${manifestOf("tools-mismatch")}`);
  });

  test("tools in another order than the manifest's", async () => {
    const error = await buildFails(await configWith([{ path: fixture("tools-reordered") }]));
    expect(error.code).toBe("PLUGIN_TOOLS");
    expect(error.message).toContain("  order: manifest alpha, beta; returned beta, alpha");
  });

  test("the plugin's tools function throws", async () => {
    const error = await buildFails(await configWith([{ path: fixture("tools-throw") }]));
    expect(error.code).toBe("PLUGIN_TOOLS");
    expect(error.message).toContain("Plugin @fixture/tools-throw failed to create its tools: cannot reach the index");
  });

  test("two plugins provide the same tool: both named, one to remove", async () => {
    const config = await configWith([
      { path: fixture("echo") },
      { path: fixture("voices"), permissions: ["fs.read"] },
      { path: fixture("duplicate-echo") },
    ]);
    const error = await buildFails(config);
    expect(error.code).toBe("PLUGIN_DUPLICATE_TOOL");
    expect(error.message.split("\n")).toEqual([
      "Tool echo is provided by two plugins: @fixture/echo (plugins[0]) and @fixture/duplicate-echo (plugins[2]).",
      `  config: ${config.configPath}`,
      "Remove one of them from the config.",
    ]);
  });

  test("the same plugin listed twice", async () => {
    const error = await buildFails(await configWith([{ path: fixture("echo") }, { path: fixture("echo") }]));
    expect(error.code).toBe("PLUGIN_DUPLICATE_TOOL");
    expect(error.message).toContain("Plugin @fixture/echo is listed twice (plugins[0] and plugins[1])");
    expect(error.message).toContain("Remove one of the two entries from the config.");
  });

  test("a workspace from the config that does not exist", async () => {
    const dir = await tempDir();
    const config = await configWith([{ path: fixture("echo") }], dir);
    await rm(dir, { recursive: true });
    const error = await buildFails(config);
    expect(error.code).toBe("WORKSPACE_INVALID");
    expect(error.message).toContain(`Workspace folder does not exist: ${dir}.`);
    expect(error.message).toContain(`The workspace is set by "workspace" in ${config.configPath}.`);
  });
});
