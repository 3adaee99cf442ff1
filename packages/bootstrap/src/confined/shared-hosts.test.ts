/**
 * Which confined plugins share a host: only first-party packages (the `@plugboard` scope,
 * installed) with the same grants. A plugin from a path, or with other grants, has its own.
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { processesWhere } from "@plugboard/test-helpers";
import { configWith, fixture, removeTempDirs, tempDir } from "../../test/temp-app.ts";
import { type App, buildApp } from "../index.ts";

setDefaultTimeout(30_000);
/** The CLI's installation, which ships the first-party plugins as packages. */
const CLI = join(import.meta.dir, "../../../../apps/cli");
const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await removeTempDirs();
});

/** The plugins each running host of `workspace` loads, as their specs name them. */
function hostedPlugins(workspace: string): string[][] {
  return processesWhere(({ argv }) => argv[0] === process.execPath && (argv[2] ?? "").includes(`"workspace":"${workspace}"`)).map((pid) => {
    const [, , spec = "{}"] = processesArgv(pid);
    return (JSON.parse(spec) as { plugins: { manifest: { name: string } }[] }).plugins.map(({ manifest }) => manifest.name).sort();
  });
}

function processesArgv(pid: number): string[] {
  return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
}

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
  expect(hostedPlugins(app.workspace.root).sort()).toEqual([
    ["@fixture/greedy"],
    ["@plugboard/plugin-edit-file"],
    ["@plugboard/plugin-glob", "@plugboard/plugin-read-file"],
  ]);
  // Each tool of the shared host answers as its own plugin's.
  expect((await app.runtime.execute("glob", '{"pattern":"*.json"}')).content).toBe("plugboard.json");
  expect((await app.runtime.execute("read_file", '{"path":"plugboard.json","limit":1}')).isError).toBe(false);
  expect(app.registry.get("glob")?.owner).toBe("@plugboard/plugin-glob");
  expect(app.registry.get("read_file")?.owner).toBe("@plugboard/plugin-read-file");
});
