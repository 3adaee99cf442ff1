/**
 * A stranger's path through a real npm registry (Verdaccio on 127.0.0.1): Plugboard is
 * released to it with `bun run release`; then, each in an empty folder with a fresh HOME,
 * someone installs the CLI globally (and chats in `plugboard web`), scaffolds, tests and
 * publishes a plugin, and someone else adds that plugin to an app, uses it and removes it. No workspace links, no overrides.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startScriptedModel } from "@plugboard/scripted-model";
import { publishOrder, workspacePackages } from "../src/workspace-packages.ts";
import { type Registry, startRegistry, TOKEN } from "./verdaccio.ts";

const REPO = join(import.meta.dir, "../../..");
const PLUGIN = "@acme/plugboard-plugin-text-stats";
const NOTES = "one two\nthree\n";
const COUNT = "notes.txt: 2 lines";

let root = "";
let registry: Registry;
/** The global install prefix: `plugboard` is its bin/plugboard. */
let prefix = "";

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "plugboard-registry-")));
  prefix = join(root, "global");
  registry = await startRegistry(join(root, "registry"));
}, 60_000);
// The temp folder holds several installs (the global CLI, a plugin, an app): removing it takes a while on a busy machine.
afterAll(async () => {
  await registry?.[Symbol.asyncDispose]();
  await rm(root, { recursive: true, force: true });
}, 180_000);

describe("a stranger's path through a real registry", () => {
  test("bun run release publishes every public package, dependencies first, with real versions; a second run skips them", async () => {
    const released = await run(["bun", "run", "release", "--registry", registry.url], REPO, { NPM_CONFIG_TOKEN: TOKEN });
    expectSuccess(released);
    const published = lines(released.stdout, "published ");
    const expected = publishOrder(await workspacePackages(REPO)).map((pkg) => `${pkg.name}@${pkg.version}`);
    expect(published.toSorted()).toEqual(expected.toSorted());
    expect(published).toContain("@plugboard/cli@0.1.0");
    for (const [first, then] of [["core", "bootstrap"], ["hosts", "bootstrap"], ["core", "testing"], ["testing", "cli"], ["core", "plugin-glob"], ["bootstrap", "cli"]]) {
      expect(published.indexOf(`@plugboard/${first}@0.1.0`)).toBeLessThan(published.indexOf(`@plugboard/${then}@0.1.0`));
    }
    const testing = (await (await fetch(new URL("@plugboard%2ftesting", registry.url))).json()) as { versions: Record<string, Record<string, unknown>> };
    const manifest = testing.versions["0.1.0"] ?? {};
    // The authors' kit brings core and nothing of the app.
    expect(Object.keys(manifest.dependencies ?? {}).sort()).toEqual(["@plugboard/core", "@plugboard/scripted-model", "@sinclair/typebox"]);
    expect(manifest.dependencies).toMatchObject({ "@plugboard/core": "0.1.0" });
    const ranges = [manifest.dependencies, manifest.devDependencies, manifest.peerDependencies].flatMap((deps) => Object.values(deps ?? {}));
    expect(ranges.filter((range) => String(range).startsWith("workspace:"))).toEqual([]);

    const again = await run(["bun", "run", "release", "--registry", registry.url], REPO, { NPM_CONFIG_TOKEN: TOKEN });
    expectSuccess(again);
    expect(lines(again.stdout, "published ")).toEqual([]);
    expect(lines(again.stdout, "skipped   ")).toEqual(expected);
  }, 180_000);

  test("npm install -g @plugboard/cli puts a working plugboard on PATH", async () => {
    const folder = await emptyFolder("install");
    expectSuccess(await run(["npm", "install", "-g", "--prefix", prefix, "--no-fund", "--no-audit", "@plugboard/cli"], folder.dir, folder.env));
    const version = await run(["plugboard", "--version"], folder.dir, folder.env);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^plugboard 0\.1\.0 \(contract /) });
    expect(await realpath(join(prefix, "bin/plugboard"))).toStartWith(prefix);
  }, 180_000);

  test("a config in an empty folder naming first-party plugins by package uses the CLI's own copies", async () => {
    const folder = await emptyFolder("first-party");
    await writeFile(join(folder.dir, "notes.txt"), NOTES);
    await writeFile(join(folder.dir, "plugboard.config.json"), JSON.stringify({ plugins: [{ package: "@plugboard/plugin-read-file", permissions: ["fs.read"] }] }));
    expect(await run(["plugboard", "call", "read_file", '{"path":"notes.txt"}'], folder.dir, folder.env)).toMatchObject({ code: 0, stdout: NOTES });
    const plugins = await run(["plugboard", "plugins"], folder.dir, folder.env);
    expect(plugins.stdout).toContain("(shipped with plugboard)");
    expect(plugins.stdout).toContain(prefix);
  }, 60_000);

  test("plugboard web from the installed CLI serves the chat page and answers a chat with the CLI's own plugins", async () => {
    const folder = await emptyFolder("web");
    await writeFile(join(folder.dir, "notes.txt"), NOTES);
    await writeFile(join(folder.dir, "plugboard.config.json"), JSON.stringify({ plugins: [{ package: "@plugboard/plugin-read-file", permissions: ["fs.read"] }] }));
    const path = [join(prefix, "bin"), dirname(process.execPath), process.env.PATH ?? "/usr/bin:/bin"].join(":");
    const child = Bun.spawn(["plugboard", "web", "--port", "0"], { cwd: folder.dir, env: { PATH: path, NO_COLOR: "1", ...folder.env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    try {
      let stderr = "";
      let url: string | undefined;
      const decoder = new TextDecoder();
      for await (const chunk of child.stderr) {
        stderr += decoder.decode(chunk, { stream: true });
        url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
        if (url) break;
      }
      if (url === undefined) throw new Error(`plugboard web exited before listening:\n${stderr}`);
      expect(stderr).toContain("Tools: read_file");
      expect(await (await fetch(url)).text()).toContain("<title>Plugboard chat</title>");
      expect((await fetch(`${url}/page.js`)).status).toBe(200);
      const answer = await fetch(`${url}/api/chat`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "read notes.txt" }] }),
      });
      expect(((await answer.json()) as { reply: string }).reply).toContain("three");
    } finally {
      child.kill("SIGTERM");
    }
    expect(await child.exited).toBe(143);
  }, 60_000);

  test("plugboard plugin new makes a package that installs from the registry, passes its tests and publishes", async () => {
    const folder = await emptyFolder("author");
    expectSuccess(await run(["plugboard", "plugin", "new", "@acme/text-stats"], folder.dir, folder.env));
    const plugin = join(folder.dir, "plugboard-plugin-text-stats");
    // The installed CLI scaffolds from the template folder its package ships: the same files as this repository's.
    expectSuccess(await run(["bun", join(REPO, "apps/cli/src/main.ts"), "plugin", "new", "@acme/text-stats", "--dir", "from-repository"], folder.dir, folder.env));
    expect(await files(plugin)).toEqual(await files(join(folder.dir, "from-repository")));
    // Before any install, the installed CLI checks package.json and the manifest, and asks for an install only for the code.
    const early = await run(["plugboard", "plugin", "check", "."], plugin, folder.env);
    expect(early.code).toBe(1);
    expect(early.stdout).toContain("✓ the manifest is valid and agrees with package.json\n");
    expect(early.stdout).toContain(`    fix: Install the plugin's dependencies: run bun install in ${plugin}, then check again.\n`);
    expectSuccess(await run(["bun", "install"], plugin, folder.env));
    const tested = await run(["bun", "test"], plugin, folder.env);
    expectSuccess(tested);
    expect(tested.stderr).toMatch(/ 0 fail\n/);
    // The kit found the plugboard on PATH and ran the plugin confined with it (where this system has the sandbox).
    expect(tested.stderr).toContain("(pass) Plugboard conformance > run confined by the sandbox with its grants, it is refused nothing");
    const checked = await run(["plugboard", "plugin", "check", "--json", "."], plugin, folder.env);
    expectSuccess(checked);
    const confined = (JSON.parse(checked.stdout) as { checks: { id: string; status: string; problems: string[] }[] }).checks.find((check) => check.id === "confined");
    expect(confined?.status === "pass" || confined?.problems[0]?.includes("this system lacks")).toBe(true);
    expectSuccess(await run(["npm", "publish"], plugin, folder.env));
    const packument = await fetch(new URL(PLUGIN.replace("/", "%2f"), registry.url));
    expect(packument.status).toBe(200);
  }, 240_000);

  test("plugboard plugin add installs it, asks for --yes without a terminal, enables it; remove undoes it", async () => {
    const app = await emptyFolder("app");
    await writeFile(join(app.dir, "notes.txt"), NOTES);
    const plugboard = (...args: string[]) => run(["plugboard", ...args], app.dir, app.env);

    const refused = await plugboard("plugin", "add", PLUGIN);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("there is no terminal to ask on; pass --yes to grant them");
    expect(existsSync(join(app.dir, "plugboard.config.json"))).toBe(false);

    const added = await plugboard("plugin", "add", PLUGIN, "--registry", registry.url, "--yes");
    expectSuccess(added);
    expect(added.stdout).toContain(`${PLUGIN} 0.1.0\n  tools:\n    text_stats  `);
    expect(added.stdout).toContain("    fs.read        read files in the workspace\n");
    expect(added.stdout).toContain(`Added ${PLUGIN} to ${join(app.dir, "plugboard.config.json")} with permissions [fs.read].`);
    expect(added.stdout).toContain("OK: ");
    const config = JSON.parse(await readFile(join(app.dir, "plugboard.config.json"), "utf8")) as { plugins: { package?: string; permissions?: string[] }[] };
    expect(config.plugins.map((entry) => entry.package)).toContain("@plugboard/plugin-read-file");
    expect(config.plugins.at(-1)).toEqual({ package: PLUGIN, permissions: ["fs.read"] });

    expect((await plugboard("tools")).stdout).toContain("text_stats(path)");
    expect(await plugboard("call", "text_stats", '{"path":"notes.txt"}')).toMatchObject({ code: 0, stdout: `${COUNT}\n` });
    await using model = await startScriptedModel([{ toolCalls: [{ name: "text_stats", arguments: { path: "notes.txt" } }] }, { content: "2 lines." }]);
    // The shipped policy asks before a tool it does not name; --yes answers for the person.
    const ran = await plugboard("run", "--yes", "--base-url", model.baseURL, "how many lines are in notes.txt?");
    expect(ran).toMatchObject({ code: 0, stdout: "2 lines.\n" });
    expect(model.requests[1]?.body.messages?.at(-1)).toEqual({ role: "tool", tool_call_id: "call_1", content: COUNT });
    const plugins = JSON.parse((await plugboard("plugins", "--json")).stdout) as { name: string; origin: string }[];
    expect(plugins.find((plugin) => plugin.name === PLUGIN)?.origin).toBe("config");
    expect(plugins.find((plugin) => plugin.name === "@plugboard/plugin-read-file")?.origin).toBe("app");

    const removed = await plugboard("plugin", "remove", PLUGIN);
    expectSuccess(removed);
    expect(removed.stdout).toBe(
      `Removed ${PLUGIN}: its entry in ${join(app.dir, "plugboard.config.json")}, its package in ${app.dir} and its pins in ${join(app.dir, "plugboard.lock.json")}.\n`,
    );
    expect(readFileSync(join(app.dir, "plugboard.lock.json"), "utf8")).not.toContain(PLUGIN);
    expect(existsSync(join(app.dir, "node_modules", PLUGIN))).toBe(false);
    const tools = await plugboard("tools");
    expect(tools.code).toBe(0);
    expect(tools.stdout).not.toContain("text_stats");
    expect(tools.stdout).toContain("read_file(path");
  }, 180_000);
});

/** An empty folder and an environment with a fresh HOME whose .npmrc points at the registry. */
async function emptyFolder(name: string): Promise<{ dir: string; env: Record<string, string> }> {
  const dir = join(root, name);
  const home = join(root, "homes", name);
  await mkdir(dir, { recursive: true });
  await mkdir(home, { recursive: true });
  await writeFile(join(home, ".npmrc"), registry.npmrc);
  return { dir, env: { HOME: home } };
}

interface Finished {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `cmd` with only PATH (the global prefix's bin and this Bun first), HOME and `extra` set. */
async function run(cmd: readonly string[], cwd: string, extra: Record<string, string> = {}): Promise<Finished> {
  const path = [join(prefix, "bin"), dirname(process.execPath), process.env.PATH ?? "/usr/bin:/bin"].join(":");
  const env = { PATH: path, HOME: join(root, "homes", "default"), NO_COLOR: "1", ...extra };
  const child = Bun.spawn([...cmd], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

/** Every file under `folder` with its content, by relative path. */
async function files(folder: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for await (const path of new Bun.Glob("**/*").scan({ cwd: folder, dot: true })) found[path] = await readFile(join(folder, path), "utf8");
  return found;
}

function lines(text: string, prefixText: string): string[] {
  return text.split("\n").flatMap((line) => (line.startsWith(prefixText) ? [line.slice(prefixText.length).split(" ")[0] ?? ""] : []));
}

function expectSuccess(finished: Finished): void {
  if (finished.code !== 0) throw new Error(`exit ${finished.code}\n${finished.stdout}\n${finished.stderr}\n--- registry log:\n${registry.log()}`);
}
