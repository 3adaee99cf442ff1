/**
 * The listing cache, for real: confined fixture plugins in temp folders, real hosts, and
 * /proc to see whether a host runs. A kept listing spares the start; any change to the
 * plugin is a miss; a broken or unwritable cache is only a miss.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { cp, mkdir, readdir, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { waitFor } from "@plugboard/test-helpers";
import { hostsOf } from "../../test/hosts.ts";
import { configWith, fixture, removeTempDirs, tempDir } from "../../test/temp-app.ts";
import { silentLogger } from "@plugboard/core";
import { detectMechanism } from "@plugboard/sandbox";
import { type App, type BuildAppOptions, buildApp } from "../index.ts";
import { resolvePlugin } from "@plugboard/loader/resolve-plugin";
import { listingCacheFolder } from "@plugboard/hosts/listing-cache";
import { listingCache } from "@plugboard/hosts/confined";
import { encodeSchema } from "@plugboard/hosts/protocol";
import { Type } from "@sinclair/typebox";

// Real host processes: a busy machine needs more than bun's default 5 s per test.
setDefaultTimeout(30_000);

const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await removeTempDirs();
});

/** A copy of a fixture plugin (the echo one unless named) in a temp folder (so it can be changed), a cache folder and a workspace. */
async function setup(name = "echo"): Promise<{ plugin: string; cacheHome: string; workspace: string }> {
  const plugin = join(await tempDir(), name);
  await cp(fixture(name), plugin, { recursive: true });
  // Its imports resolve as the fixture's do.
  await symlink(join(import.meta.dir, "../../node_modules"), join(plugin, "node_modules"));
  return { plugin, cacheHome: await tempDir(), workspace: await tempDir() };
}

async function start(plugin: string, workspace: string, cacheHome: string, options: BuildAppOptions = {}): Promise<App> {
  const app = await buildApp(await configWith([{ path: plugin, permissions: [] }], workspace, "auto"), {
    env: { XDG_CACHE_HOME: cacheHome },
    ...options,
  });
  apps.push(app);
  return app;
}

/** The listing entries in the cache folder (beside them: the hosts' programs, in `program/`). */
async function listed(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((name) => /^[0-9a-f]{64}\.json$/.test(name));
}

describe("the listing cache", () => {
  test("a second app mounts the kept listing: its host starts on the first call, not before", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    const first = await start(plugin, workspace, cacheHome);
    expect(hostsOf(workspace).length).toBeGreaterThan(0);
    const entries = await listed(join(cacheHome, "plugboard", "hosts"));
    expect(entries).toHaveLength(1);
    // Kept for this user alone: the folder 0700, each entry 0600.
    expect(statSync(join(cacheHome, "plugboard", "hosts")).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheHome, "plugboard", "hosts", entries[0] ?? "")).mode & 0o777).toBe(0o600);
    await first.close();

    const second = await start(plugin, workspace, cacheHome);
    expect(second.runtime.schemas()).toEqual(first.runtime.schemas());
    expect(second.sandbox.confined).toEqual(["@fixture/echo"]);
    expect(hostsOf(workspace)).toEqual([]);
    // Checked against the kept schema, still without a host.
    expect((await second.runtime.execute("echo", "{}")).content).toStartWith("Error: Invalid arguments for echo: text: ");
    expect(hostsOf(workspace)).toEqual([]);
    expect(await second.runtime.execute("echo", '{"text":"hi"}')).toEqual({ content: "hi", isError: false });
    expect(hostsOf(workspace).length).toBeGreaterThan(0);
    await second.close();
    expect(hostsOf(workspace)).toEqual([]);
  });

  test("warmUp starts a host mounted from the cache in the background, before any call", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    await (await start(plugin, workspace, cacheHome)).close();
    const app = await start(plugin, workspace, cacheHome);
    expect(hostsOf(workspace)).toEqual([]);
    app.warmUp();
    await waitFor("the host starts after warmUp", () => hostsOf(workspace).length > 0, { timeoutMs: 10_000 });
    expect(await app.runtime.execute("echo", '{"text":"hi"}')).toEqual({ content: "hi", isError: false });
    await app.close();
    expect(hostsOf(workspace)).toEqual([]);
  });

  test("warm: a host mounted from the cache loads the plugins of the tools about to be called as it starts, before their call", async () => {
    const { plugin, cacheHome, workspace } = await setup("marks-load");
    const config = await configWith([{ path: plugin, permissions: ["fs.write"] }], workspace, "auto");
    const marker = join(workspace, "marks-load.loaded");
    // The first app lists the plugin's tools, loading it; the listing is kept.
    await (await buildApp(config, { env: { XDG_CACHE_HOME: cacheHome } })).close();
    await rm(marker);
    // Mounted from the cache without `warm`: nothing is loaded until the call.
    const cold = await buildApp(config, { env: { XDG_CACHE_HOME: cacheHome } });
    apps.push(cold);
    expect(existsSync(marker)).toBe(false);
    await cold.close();
    const app = await buildApp(config, { env: { XDG_CACHE_HOME: cacheHome }, warm: ["loaded"] });
    apps.push(app);
    await waitFor("the plugin of the warm tool is loaded, with no call made", () => existsSync(marker), { timeoutMs: 10_000 });
    expect(await app.runtime.execute("loaded", "{}")).toEqual({ content: "loaded", isError: false });
  });

  test("a changed plugin file is a miss: the host starts and lists what the plugin says now", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    await (await start(plugin, workspace, cacheHome)).close();
    const source = join(plugin, "src/index.ts");
    await writeFile(source, readFileSync(source, "utf8").replace('"Repeat the text."', '"Repeat the text, changed."'));
    // The person accepts their edit (the lock pins the plugin's files).
    const changed = await start(plugin, workspace, cacheHome, { changedTools: { accept: "@fixture/echo" } });
    expect(changed.codePinning.accepted.map(({ source, changed }) => [source, changed])).toEqual([["@fixture/echo", ["src/index.ts"]]]);
    expect(hostsOf(workspace).length).toBeGreaterThan(0);
    expect(changed.runtime.schemas()[0]?.function.description).toBe("Repeat the text, changed.");
  });

  test("other options are a miss too", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    await (await start(plugin, workspace, cacheHome)).close();
    const app = await buildApp(await configWith([{ path: plugin, permissions: [], options: { prefix: "> " } }], workspace, "auto"), {
      env: { XDG_CACHE_HOME: cacheHome },
    });
    apps.push(app);
    expect(hostsOf(workspace).length).toBeGreaterThan(0);
    expect(await listed(join(cacheHome, "plugboard", "hosts"))).toHaveLength(2);
  });

  test("other granted paths are a miss too: a listing made with other grants is not reused", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    await (await start(plugin, workspace, cacheHome)).close();
    const granted = await tempDir();
    for (const paths of [{ read: [granted] }, { write: [granted] }]) {
      const app = await buildApp(await configWith([{ path: plugin, permissions: [], ...paths }], workspace, "auto"), { env: { XDG_CACHE_HOME: cacheHome } });
      apps.push(app);
      expect(hostsOf(workspace).length).toBeGreaterThan(0);
      await app.close();
    }
    expect(await listed(join(cacheHome, "plugboard", "hosts"))).toHaveLength(3);
  });

  test("freshHosts starts every host even when its listing is kept", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    await (await start(plugin, workspace, cacheHome)).close();
    await start(plugin, workspace, cacheHome, { freshHosts: true });
    expect(hostsOf(workspace).length).toBeGreaterThan(0);
  });

  test("an unreadable entry is a miss, and is written again", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    await (await start(plugin, workspace, cacheHome)).close();
    const folder = join(cacheHome, "plugboard", "hosts");
    const [entry = ""] = await listed(folder);
    await writeFile(join(folder, entry), '{"tools": "not a list"');
    const app = await start(plugin, workspace, cacheHome);
    expect(hostsOf(workspace).length).toBeGreaterThan(0);
    expect(app.runtime.schemas()[0]?.function.name).toBe("echo");
    expect(JSON.parse(readFileSync(join(folder, entry), "utf8")).plugins[0].tools[0].name).toBe("echo");
  });

  test("the one file of closures an earlier version kept (closures.json) goes when a listing is written; closures/ holds them now", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    const folder = join(cacheHome, "plugboard", "hosts");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "closures.json"), "{}");
    await (await start(plugin, workspace, cacheHome)).close();
    expect(existsSync(join(folder, "closures.json"))).toBe(false);
    expect((await readdir(join(folder, "closures"))).length).toBeGreaterThan(0);
  });

  test("an entry naming other tools than the manifest is a miss: no tool of it is mounted", async () => {
    const { plugin, cacheHome, workspace } = await setup();
    await (await start(plugin, workspace, cacheHome)).close();
    const folder = join(cacheHome, "plugboard", "hosts");
    const [entry = ""] = await listed(folder);
    const listing = JSON.parse(readFileSync(join(folder, entry), "utf8"));
    listing.plugins[0].tools.push({ ...listing.plugins[0].tools[0], name: "bash", description: "Run anything." });
    await writeFile(join(folder, entry), JSON.stringify(listing));
    const app = await start(plugin, workspace, cacheHome);
    expect(hostsOf(workspace).length).toBeGreaterThan(0);
    expect(app.registry.names()).toEqual(["echo"]);
    expect(JSON.parse(readFileSync(join(folder, entry), "utf8")).plugins[0].tools.map((tool: { name: string }) => tool.name)).toEqual(["echo"]);
  });

  test.each([
    ["on its call", []],
    ["loaded as the host starts (warm)", ["explode"]],
  ])("a host mounted from the cache that cannot load its plugin answers its calls with the plugin's load error: %s", async (_, warm) => {
    // The listing of a plugin that fails at import, as a kept entry would hold it.
    const { plugin, cacheHome, workspace } = await setup("import-throws");
    const config = await configWith([{ path: plugin, permissions: [] }], workspace, "auto");
    const [entry] = config.plugins;
    if (entry === undefined || "mcp" in entry) throw new Error("expected a plugin entry");
    const resolved = await resolvePlugin(entry, { index: 0, configPath: config.configPath });
    const mechanism = detectMechanism({});
    if (!mechanism.available) throw new Error(`no sandbox here: ${mechanism.missing}`);
    const folder = listingCacheFolder({ XDG_CACHE_HOME: cacheHome }) ?? "";
    const parameters = encodeSchema(Type.Object({}));
    listingCache(folder, [resolved], mechanism, workspace, silentLogger)?.write({
      plugins: [{ name: "@fixture/import-throws", tools: [{ name: "explode", description: "Never loads.", parameters, concurrency: "serial" }] }],
    });
    const app = await buildApp(config, { env: { XDG_CACHE_HOME: cacheHome }, warm });
    apps.push(app);
    if (warm.length === 0) expect(hostsOf(workspace)).toEqual([]);
    // The same answer again: the host that failed to load it is still the one answering.
    for (const _call of [1, 2]) {
      expect(await app.runtime.execute("explode", "{}")).toEqual({
        content: "Error: Plugin @fixture/import-throws failed to load: importing its entry threw: boom: PLUGIN_TOKEN is not set",
        isError: true,
      });
    }
  });

  test("a cache folder that cannot be written costs only the start", async () => {
    const { plugin, workspace } = await setup();
    const blocker = join(await tempDir(), "a-file");
    await writeFile(blocker, "");
    const app = await start(plugin, workspace, blocker);
    expect(await app.runtime.execute("echo", '{"text":"hi"}')).toEqual({ content: "hi", isError: false });
  });

  test("the folder: XDG_CACHE_HOME, else ~/.cache, else none", () => {
    expect(listingCacheFolder({ XDG_CACHE_HOME: "/x", HOME: "/h" })).toBe("/x/plugboard/hosts");
    expect(listingCacheFolder({ HOME: "/h" })).toBe("/h/.cache/plugboard/hosts");
    expect(listingCacheFolder({})).toBeUndefined();
  });
});
