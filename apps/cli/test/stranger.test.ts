/**
 * A stranger's path, without this repository's workspace links: scaffold a plugin with
 * `plugboard plugin new`, run its tests, pack it; pack Plugboard's packages the same way
 * (`bun pm pack` turns `workspace:*` into versions); install all of them as tarballs in a new
 * app folder; enable the plugin in the app's config and use it through the installed
 * `plugboard` bin. Third-party packages (openai, typebox, …) come from the registry or bun's
 * cache; every `@plugboard/*` name is overridden to its tarball, since none is on a registry.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile, realpath, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedModel } from "@plugboard/testing";
import { cleanEnv, type Finished, plugboard, tempFolder } from "./helpers.ts";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));
/** Every package the CLI needs at run time, and the testing kit the plugin's tests need. */
const PACKED = ["packages/core", "packages/bootstrap", "packages/sandbox", "packages/mcp", "packages/scripted-model", "packages/testing", "packages/demo-model"]
  .concat(["plugins/bash", "plugins/read-file", "plugins/write-file", "plugins/edit-file", "plugins/glob", "apps/cli"]);
const PLUGIN = "@acme/plugboard-plugin-text-stats";
const NOTES = "one two\nthree\n";
const COUNT = "notes.txt: 2 lines, 3 words, 14 characters";

let root = "";
let remove = async () => {};
let overrides: Record<string, string> = {};
let pluginDir = "";
let app = "";

beforeAll(async () => {
  ({ dir: root, remove } = await tempFolder({ "app/workspace/notes.txt": NOTES }));
  root = await realpath(root);
  app = join(root, "app");
  pluginDir = join(root, "plugboard-plugin-text-stats");
  const tarballs = await Promise.all(PACKED.map((folder) => pack(join(REPO, folder), join(root, "tarballs"))));
  overrides = Object.fromEntries(tarballs.map(({ name, tarball }) => [name, `file:${tarball}`]));
}, 60_000);
// The app folder holds installed packages (the MCP SDK among them): removing it can take a while on a busy machine.
afterAll(() => remove(), 60_000);

describe("a third-party plugin, from scaffold to a running app", () => {
  test("plugboard plugin new makes a package that passes its own tests once installed", async () => {
    const created = await plugboard(["plugin", "new", "@acme/text-stats"], { cwd: root });
    expect(created.code).toBe(0);
    expect(created.stdout).toStartWith(`Created ${PLUGIN} in ${pluginDir}:`);
    await addToPackageJson(pluginDir, { overrides });
    expectSuccess(await run(["bun", "install"], pluginDir));
    // The manifest's $schema (for editors) resolves once the devDependencies are installed.
    const { $schema } = JSON.parse(await readFile(join(pluginDir, "plugboard.plugin.json"), "utf8"));
    expect(await Bun.file(join(pluginDir, $schema)).exists()).toBe(true);
    const tested = await run(["bun", "test"], pluginDir);
    expectSuccess(tested);
    expect(tested.stderr).toContain("(pass) Plugboard conformance > it uses only the permissions it asks for");
    expect(tested.stderr).toMatch(/ 17 pass\n 0 fail\n/);
    expectSuccess(await run(["bun", "run", "typecheck"], pluginDir));
    // Another Plugboard's checker (this repository's, another copy of core) uses the plugin's own core.
    const checked = await plugboard(["plugin", "check", pluginDir], { cwd: root });
    expect(checked).toMatchObject({ code: 0, stderr: "" });
    expect(checked.stdout).toEndWith("9 passed.\n");
  }, 60_000);

  test("the plugin packs into a tarball with its manifest and sources, without its tests", async () => {
    const { tarball } = await pack(pluginDir, join(root, "tarballs"));
    overrides[PLUGIN] = `file:${tarball}`;
    const listing = await run(["tar", "-tzf", tarball], root);
    const files = listing.stdout.trim().split("\n").sort();
    expect(files).toEqual(
      ["package.json", "plugboard.plugin.json", "README.md", "src/index.ts", "src/text-stats.ts"].map((file) => `package/${file}`).sort(),
    );
  }, 30_000);

  test("an app installs the tarballs and calls the plugin's tool through the installed plugboard", async () => {
    await writeFile(join(app, "package.json"), JSON.stringify({ name: "app", private: true, dependencies: { "@plugboard/cli": overrides["@plugboard/cli"], [PLUGIN]: overrides[PLUGIN] }, overrides }));
    await writeConfig(["fs.read"]);
    expectSuccess(await run(["bun", "install"], app));

    const called = await installed(["call", "text_stats", '{"path":"notes.txt"}']);
    expect(called).toMatchObject({ code: 0, stdout: `${COUNT}\n` });
    const plugins = JSON.parse((await installed(["plugins", "--json"])).stdout);
    expect(plugins).toEqual([{ name: PLUGIN, version: "0.1.0", tools: ["text_stats"], permissions: ["fs.read"], directory: join(app, "node_modules", PLUGIN), origin: "config" }]);
    // Installed copies, not links into this repository.
    for (const name of ["@plugboard/cli", "@plugboard/core", "@plugboard/bootstrap"]) {
      expect(await realpath(join(app, "node_modules", name))).toStartWith(join(app, "node_modules"));
    }
  }, 60_000);

  test("the installed plugboard scaffolds from the template folder its package ships", async () => {
    const created = await installed(["plugin", "new", "shipped", "--dir", join(root, "shipped")]);
    expect(created).toMatchObject({ code: 0, stderr: "" });
    const fromRepository = await plugboard(["plugin", "new", "shipped", "--dir", join(root, "shipped-here")], { cwd: root });
    const files = (folder: string) => run(["find", ".", "-type", "f"], folder).then((found) => found.stdout.split("\n").sort());
    expect(await files(join(root, "shipped"))).toEqual(await files(join(root, "shipped-here")));
    expect(await readFile(join(root, "shipped", "src/shipped.ts"), "utf8")).toBe(await readFile(join(root, "shipped-here", "src/shipped.ts"), "utf8"));
  }, 30_000);

  test("plugboard run against the scripted model gets the tool's result back to the model", async () => {
    await using model = await startScriptedModel([
      { toolCalls: [{ name: "text_stats", arguments: { path: "notes.txt" } }] },
      { content: "notes.txt has 3 words." },
    ]);
    const ran = await installed(["run", "--base-url", model.baseURL, "how many words are in notes.txt?"]);
    expect(ran).toMatchObject({ code: 0, stdout: "notes.txt has 3 words.\n" });
    expect(ran.stderr).toContain(`[tool] text_stats {"path":"notes.txt"} → ${COUNT}`);
    const [first, second] = model.requests;
    expect(first?.body.tools).toEqual([expect.objectContaining({ type: "function", function: expect.objectContaining({ name: "text_stats" }) })]);
    expect(second?.body.messages?.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: COUNT });
  }, 30_000);

  test("the app refuses the plugin, exit 2, when its config entry does not grant fs.read", async () => {
    await writeConfig([]);
    const refused = await installed(["call", "text_stats", '{"path":"notes.txt"}']);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(`Plugin ${PLUGIN} needs permission fs.read, which its config entry does not grant.`);
    expect(refused.stderr).toContain('To allow it, set "permissions": ["fs.read"] in plugins[0]');
  }, 30_000);

  test("the app refuses the plugin, exit 2, when its contract range excludes the running core", async () => {
    await writeConfig(["fs.read"]);
    const manifestPath = join(app, "node_modules", PLUGIN, "plugboard.plugin.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8"));
    await writeFile(manifestPath, JSON.stringify({ ...manifest, contract: "^2.0.0" }));
    const refused = await installed(["call", "text_stats", '{"path":"notes.txt"}']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`Plugin ${PLUGIN} supports contract ^2.0.0, this Plugboard provides 1.0.0.`);
  }, 30_000);
});

/** Packs `folder` with `bun pm pack` into `destination`; returns the package's name and the tarball. */
async function pack(folder: string, destination: string): Promise<{ name: string; tarball: string }> {
  const packed = await run(["bun", "pm", "pack", "--quiet", "--destination", destination], folder);
  expectSuccess(packed);
  const { name } = JSON.parse(await readFile(join(folder, "package.json"), "utf8"));
  return { name, tarball: packed.stdout.trim().split("\n").at(-1) ?? "" };
}

/** Runs the `plugboard` bin the app installed, in the app's folder. */
function installed(args: readonly string[]): Promise<Finished> {
  return run([join(app, "node_modules", ".bin", "plugboard"), ...args], app);
}

function writeConfig(permissions: readonly string[]): Promise<void> {
  const config = { workspace: "./workspace", plugins: [{ package: PLUGIN, permissions }] };
  return writeFile(join(app, "plugboard.config.json"), JSON.stringify(config, null, 2));
}

async function addToPackageJson(folder: string, fields: Record<string, unknown>): Promise<void> {
  const path = join(folder, "package.json");
  await writeFile(path, JSON.stringify({ ...JSON.parse(await readFile(path, "utf8")), ...fields }, null, 2));
}

/** Install settings a CI may set (bun's cache, a registry mirror, a proxy) carry over to the children. */
const INSTALL_SETTINGS = ["BUN_INSTALL", "BUN_INSTALL_CACHE_DIR", "BUN_CONFIG_REGISTRY", "NPM_CONFIG_REGISTRY", "npm_config_registry", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"];

async function run(cmd: readonly string[], cwd: string): Promise<Finished> {
  const settings = Object.fromEntries(INSTALL_SETTINGS.flatMap((key) => (process.env[key] ? [[key, process.env[key]]] : [])));
  const child = Bun.spawn([...cmd], { cwd, env: cleanEnv(settings), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

function expectSuccess(finished: Finished): void {
  if (finished.code !== 0) throw new Error(`exit ${finished.code}\n${finished.stdout}\n${finished.stderr}`);
}
