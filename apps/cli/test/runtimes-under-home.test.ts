/**
 * A confined server's program is visible wherever it lives (DESIGN.md, "Paths a person
 * grants"): Bun installed in a test HOME as its installer puts it (`~/.bun/bin/bun`) and
 * through an npm prefix there (`~/.npm-global/bin/bun` → `../lib/node_modules/bun/bin/bun.exe`),
 * and `npx` from a Node installed as nvm installs it (`~/.nvm/versions/node/vX/bin`). The
 * runtimes are this machine's own, linked or copied into the test HOME: no network.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, cpSync, existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { detectMechanism } from "@plugboard/sandbox";
import { plugboard, tempFolder } from "./helpers.ts";

const TIMEOUT_MS = 60_000;
const PLAIN_SERVER = fileURLToPath(new URL("./fixtures/plain-server/", import.meta.url));
const confining = detectMechanism().available;
const npx = Bun.which("npx");
const node = Bun.which("node");
if (!confining) console.warn("runtimes-under-home.test.ts skipped: this system has no sandbox mechanism");
if (npx === null || node === null) console.warn("runtimes-under-home.test.ts: the npx test is skipped: no node and npx on PATH");

let dir = "";
let home = "";
let remove = async () => {};

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\n" }));
  dir = realpathSync(dir);
  home = join(dir, "home");
  const workspace = join(dir, "workspace");
  // The server as an installed package of the workspace, with its bin: what npx runs.
  cpSync(PLAIN_SERVER, join(workspace, "node_modules/plain-mcp-server"), { recursive: true });
  mkdirSync(join(workspace, "node_modules/.bin"));
  symlinkSync("../plain-mcp-server/server.js", join(workspace, "node_modules/.bin/plain-mcp-server"));
});
afterAll(() => remove());

/** `file` at `to`: a hard link when the file system allows, else a copy (mode kept). */
function place(file: string, to: string): void {
  mkdirSync(dirname(to), { recursive: true });
  try {
    linkSync(file, to);
  } catch {
    copyFileSync(file, to);
  }
}

/** `tools` through a config whose one server is `command args…`, with `PATH` starting at `bin`. */
async function serverTools(name: string, bin: string, command: string, args: string[], permissions: string[]): Promise<{ code: number; names: string[]; stderr: string }> {
  const config = join(dir, `${name}.json`);
  const server = { mcp: { command, args }, name, permissions };
  writeFileSync(config, JSON.stringify({ workspace: "./workspace", sandbox: "required", plugins: [server] }));
  const env = { HOME: home, PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` };
  const result = await plugboard(["tools", "--json", "--config", config], { cwd: dir, env });
  const names = result.code === 0 ? (JSON.parse(result.stdout) as { function: { name: string } }[]).map((tool) => tool.function.name) : [];
  return { code: result.code, names, stderr: result.stderr };
}

/** This Bun in the test HOME, as its installer puts it and through an npm prefix there (once); returns the prefix. */
function bunUnderHome(): string {
  const prefix = join(home, ".npm-global");
  if (existsSync(join(prefix, "bin/bun"))) return prefix;
  const bun = realpathSync(process.execPath);
  place(bun, join(home, ".bun/bin/bun"));
  place(bun, join(prefix, "lib/node_modules/bun/bin/bun.exe"));
  writeFileSync(join(prefix, "lib/node_modules/bun/package.json"), JSON.stringify({ name: "bun", version: Bun.version }));
  mkdirSync(join(prefix, "bin"));
  symlinkSync("../lib/node_modules/bun/bin/bun.exe", join(prefix, "bin/bun"));
  return prefix;
}

describe.skipIf(!confining)("a confined server started as bun …, with Bun installed under HOME", () => {
  test("as Bun's installer puts it (~/.bun/bin/bun) and through an npm prefix there (~/.npm-global/bin/bun, a link into the prefix's lib)", async () => {
    const prefix = bunUnderHome();
    const script = ["node_modules/plain-mcp-server/server.js"];
    for (const bin of [join(home, ".bun/bin"), join(prefix, "bin")]) {
      expect(Bun.which("bun", { PATH: `${bin}:/usr/bin` })).toBe(join(bin, "bun"));
      const listed = await serverTools(`bun-${basename(dirname(bin))}`, bin, "bun", script, ["fs.read"]);
      expect(listed.stderr).toBe("");
      expect(listed).toMatchObject({ code: 0, names: ["echo", "read_path", "write_path"] });
    }
  }, TIMEOUT_MS);

  test("the attack: nothing else of HOME or of the runtime's folders is seen, from the first start and the next, and nothing is planted beside the runtime on PATH; the twin unconfined reads and plants", async () => {
    const prefix = bunUnderHome();
    const bin = join(prefix, "bin");
    // A key in HOME, another package of the same prefix, and Bun's own folder: none is the server's program.
    mkdirSync(join(home, ".ssh"), { recursive: true });
    writeFileSync(join(home, ".ssh/id_ed25519"), "PRIVATE KEY\n");
    mkdirSync(join(prefix, "lib/node_modules/other"), { recursive: true });
    writeFileSync(join(prefix, "lib/node_modules/other/secret.txt"), "other package\n");
    const secrets = [join(home, ".ssh/id_ed25519"), join(prefix, "lib/node_modules/other/secret.txt")];
    // A program planted beside bun in a PATH folder would run the next time the person types its name.
    const planted = [join(bin, "git"), join(home, ".bun/bin/node")];
    const env = { HOME: home, PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` };
    const attack = async (sandbox: string) => {
      const config = join(dir, `attack-${sandbox}.json`);
      const server = { mcp: { command: "bun", args: ["node_modules/plain-mcp-server/server.js"] }, name: "plain", permissions: ["fs.read", "fs.write"] };
      writeFileSync(config, JSON.stringify({ workspace: "./workspace", sandbox, plugins: [server] }));
      const call = (tool: string, args: object) => plugboard(["call", "--config", config, tool, JSON.stringify(args)], { cwd: dir, env });
      // One after another, and twice each: the server's second start finds its first's view in its cache folder (its HOME).
      const reads = [];
      for (const path of [...secrets, ...secrets]) reads.push((await call("read_path", { path })).stdout);
      for (const path of planted) await call("write_path", { path, text: "#!/bin/sh\necho planted\n" });
      return reads;
    };
    // Confined, HOME is the server's cache folder: a write there lands in that folder, never beside the person's runtime.
    const confined = await attack("required");
    expect(confined).toHaveLength(4);
    for (const read of confined) expect(read).toStartWith("Error: ENOENT");
    for (const path of planted) expect(existsSync(path)).toBe(false);

    // The server's HOME is its cache folder, on disk: a link it leaves there on the way to its runtime
    // must not lead the next start's view, made before the server is confined, into the real file system.
    const [cache = ""] = [...new Bun.Glob("plain-*").scanSync({ cwd: join(home, ".cache/plugboard/servers"), onlyFiles: false })];
    const victim = join(dir, "victim");
    mkdirSync(victim);
    writeFileSync(join(victim, "bun"), "the person's\n");
    const inCache = join(home, ".cache/plugboard/servers", cache, ".npm-global/bin");
    rmSync(inCache, { recursive: true, force: true });
    symlinkSync(`/.plugboard-old-root${victim}`, inCache);
    const led = await plugboard(["call", "--config", join(dir, "attack-required.json"), "echo", '{"text":"hi"}'], { cwd: dir, env });
    expect(readdirSync(victim)).toEqual(["bun"]);
    expect(lstatSync(join(victim, "bun")).isFile()).toBe(true);
    expect(readFileSync(join(victim, "bun"), "utf8")).toBe("the person's\n");
    expect(led.code).toBe(2);
    expect(led.stderr).toContain("/.npm-global/bin is a link out of the view, left where a confined process could write: remove it");

    const twin = await attack("off");
    expect(twin).toEqual(["PRIVATE KEY\n", "other package\n", "PRIVATE KEY\n", "other package\n"]);
    for (const path of planted) expect(existsSync(path)).toBe(true);
  }, TIMEOUT_MS);
});

describe.skipIf(!confining || npx === null || node === null)("a confined server started as npx …, with Node installed under HOME as nvm installs it", () => {
  test("npx and the node its #! line finds, both under ~/.nvm, start the workspace's server", async () => {
    // This machine's Node as an installation of its own: bin/node, lib/node_modules/npm, and npm's links in bin.
    const npm = dirname(dirname(realpathSync(npx ?? "")));
    const installation = join(home, `.nvm/versions/node/v${process.versions.node}`);
    place(realpathSync(node ?? ""), join(installation, "bin/node"));
    cpSync(npm, join(installation, "lib/node_modules/npm"), { recursive: true });
    symlinkSync("../lib/node_modules/npm/bin/npx-cli.js", join(installation, "bin/npx"));
    symlinkSync("../lib/node_modules/npm/bin/npm-cli.js", join(installation, "bin/npm"));
    const bin = join(installation, "bin");
    expect(Bun.which("npx", { PATH: `${bin}:/usr/bin` })).toBe(join(bin, "npx"));
    // npm runs the package's bin through sh -c: process.spawn; the bin is in the workspace: fs.read.
    const listed = await serverTools("npx-nvm", bin, "npx", ["plain-mcp-server"], ["fs.read", "process.spawn"]);
    expect(listed.stderr).toBe("");
    expect(listed).toMatchObject({ code: 0, names: ["echo", "read_path", "write_path"] });
  }, TIMEOUT_MS);
});
