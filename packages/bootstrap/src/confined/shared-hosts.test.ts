/**
 * Which confined plugins share a host: only first-party packages (the `@plugboard` scope,
 * installed) with the same grants. A plugin from a path, or with other grants, has its own.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { cp, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { silentLogger } from "@plugboard/core";
import { listingCache } from "@plugboard/hosts/confined";
import { listingCacheFolder } from "@plugboard/hosts/listing-cache";
import { encodeSchema } from "@plugboard/hosts/protocol";
import { resolvePlugin } from "@plugboard/loader/resolve-plugin";
import { detectMechanism } from "@plugboard/sandbox";
import { Type } from "@sinclair/typebox";
import { configWith, fixture, removeTempDirs, tempDir, writeConfig } from "../../test/temp-app.ts";
import { type App, buildApp, loadConfig } from "../index.ts";
import { hostGroups } from "../plan.ts";
import { hostProcessesOf } from "../../test/hosts.ts";

setDefaultTimeout(30_000);
/** The CLI's installation, which ships the first-party plugins as packages. */
const CLI = join(import.meta.dir, "../../../../apps/cli");
const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await removeTempDirs();
});

test("first-party plugins with the same grants share a host; other grants, or a plugin from a path, do not", async () => {
  const workspace = await tempDir();
  const config = await configWith(
    [
      { package: "@plugboard/plugin-read-file", permissions: ["fs.read"] },
      { package: "@plugboard/plugin-glob", permissions: ["fs.read"] },
      { package: "@plugboard/plugin-edit-file", permissions: ["fs.read", "fs.write"] },
      { path: fixture("greedy"), permissions: ["fs.read"] },
    ],
    workspace,
    "auto",
  );
  const app = await buildApp(config, { appFolder: CLI, freshHosts: true, env: {} });
  apps.push(app);
  // Four plugins in three hosts, as the plan groups them: glob's and read_file's shared.
  const found = await Promise.all(config.plugins.map((entry, index) => ("mcp" in entry ? undefined : resolvePlugin(entry, { index, configPath: config.configPath }, CLI))));
  const groups = hostGroups(found.filter((plugin) => plugin !== undefined)).map((group) => group.map(({ manifest }) => manifest.name).sort());
  expect(groups.sort()).toEqual([["@fixture/greedy"], ["@plugboard/plugin-edit-file"], ["@plugboard/plugin-glob", "@plugboard/plugin-read-file"]]);
  expect(hostProcessesOf(app.workspace.root)).toHaveLength(3);
  // Each tool of the shared host answers as its own plugin's.
  expect((await app.runtime.execute("glob", '{"pattern":"plugboard*.json"}')).content).toBe("plugboard.json\nplugboard.lock.json");
  expect((await app.runtime.execute("read_file", '{"path":"plugboard.json","limit":1}')).isError).toBe(false);
  expect(app.registry.get("glob")?.owner).toBe("@plugboard/plugin-glob");
  expect(app.registry.get("read_file")?.owner).toBe("@plugboard/plugin-read-file");
});

test("a first-party plugin granted paths besides the workspace has a host of its own: no other plugin sees them", async () => {
  const workspace = await tempDir();
  const granted = await tempDir();
  const config = await configWith(
    [
      { package: "@plugboard/plugin-read-file", permissions: ["fs.read"], read: [granted] },
      { package: "@plugboard/plugin-glob", permissions: ["fs.read"] },
    ],
    workspace,
    "auto",
  );
  const app = await buildApp(config, { appFolder: CLI, freshHosts: true, env: {} });
  apps.push(app);
  expect(hostProcessesOf(app.workspace.root)).toHaveLength(2);
});

/** A copy of fixture `name` installed in `dir`'s node_modules as `@plugboard/NEW`, as a first-party package would be. */
async function installedAs(dir: string, name: string, renamed: string): Promise<void> {
  const target = join(dir, "node_modules", "@plugboard", renamed);
  await cp(fixture(name), target, { recursive: true });
  for (const file of ["package.json", "plugboard.plugin.json"]) {
    const path = join(target, file);
    await writeFile(path, (await readFile(path, "utf8")).replace(`"@fixture/${name}"`, `"@plugboard/${renamed}"`));
  }
  // Its imports (core, TypeBox) resolve as the fixture's do.
  await symlink(join(import.meta.dir, "../../node_modules"), join(target, "node_modules"));
}

test("a shared host mounted from the listing cache loads each plugin on its first call: one that fails to load fails only its own calls", async () => {
  const dir = await tempDir();
  await installedAs(dir, "echo", "plugin-echo");
  await installedAs(dir, "import-throws", "plugin-explode");
  const [cacheHome, workspace] = await Promise.all([tempDir(), tempDir()]);
  // The packages are installed beside the config, outside the workspace (whose links no host follows out).
  const path = await writeConfig(dir, {
    workspace,
    sandbox: "auto",
    plugins: [
      { package: "@plugboard/plugin-echo", permissions: [] },
      { package: "@plugboard/plugin-explode", permissions: [] },
    ],
  });
  const config = await loadConfig(path, { env: {}, cwd: dir });
  const group = await Promise.all(
    config.plugins.map((entry, index) => {
      if ("mcp" in entry) throw new Error("expected plugin entries");
      return resolvePlugin(entry, { index, configPath: config.configPath });
    }),
  );
  const mechanism = detectMechanism({});
  if (!mechanism.available) throw new Error(`no sandbox here: ${mechanism.missing}`);
  // What the host listed when both plugins loaded (the second one broke since).
  const folder = listingCacheFolder({ XDG_CACHE_HOME: cacheHome }) ?? "";
  const tool = (name: string) => ({ name, description: "", parameters: encodeSchema(Type.Object({ text: Type.Optional(Type.String()) })), concurrency: "serial" as const });
  listingCache(folder, group, mechanism, config.workspace, silentLogger)?.write({
    plugins: [
      { name: "@plugboard/plugin-echo", tools: [tool("echo")] },
      { name: "@plugboard/plugin-explode", tools: [tool("explode")] },
    ],
  });
  const app = await buildApp(config, { env: { XDG_CACHE_HOME: cacheHome } });
  apps.push(app);
  expect(hostProcessesOf(app.workspace.root)).toEqual([]);
  expect(await app.runtime.execute("echo", '{"text":"hi"}')).toEqual({ content: "hi", isError: false });
  // One host for both: it loads echo now, explode on its first call.
  expect(hostProcessesOf(app.workspace.root)).toHaveLength(1);
  expect(await app.runtime.execute("explode", "{}")).toEqual({
    content: "Error: Plugin @plugboard/plugin-explode failed to load: importing its entry threw: boom: PLUGIN_TOKEN is not set",
    isError: true,
  });
  // The host goes on serving the plugin that loaded.
  expect(await app.runtime.execute("echo", '{"text":"again"}')).toEqual({ content: "again", isError: false });
});
