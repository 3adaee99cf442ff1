/**
 * The doors the third edition closes (DESIGN.md, "Sandbox: a view built for the plugin"),
 * each tried from outside through the real CLI: the attack runs confined and is refused or
 * contained, then runs again with the defence off (`"sandbox": "off"`, or `"sandbox": false`
 * on the entry) and works, so each test fails if its defence goes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, realpathSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { childrenOf, killAll, processesWhere, survivors, terminalOf, uniqueMarker, waitFor } from "@plugboard/test-helpers";
import { cleanEnv, FIRST_PARTY, type Finished, plugboard, spawnPlugboard, tempFolder } from "./helpers.ts";

/** Each test starts several CLI processes and hosts: generous on a busy machine. */
const TIMEOUT_MS = 30_000;
const MAIN = fileURLToPath(new URL("../src/main.ts", import.meta.url));
const READING_SERVER = fileURLToPath(new URL("./fixtures/reading-server/server.ts", import.meta.url));
const CORE = realpathSync(Bun.resolveSync("@plugboard/core", import.meta.dir));
const BASH = firstParty("bash");
const KEY = "-----BEGIN OPENSSH PRIVATE KEY----- doors-test";
const CREDENTIALS = "aws_secret_access_key = doors-test";

/** Stand-ins for ~/.ssh/id_ed25519 and ~/.aws/credentials, in a folder outside every workspace. */
let secrets = "";
let removeSecrets = async () => {};
let key = "";
let credentials = "";

beforeAll(async () => {
  ({ dir: secrets, remove: removeSecrets } = await tempFolder({ ".ssh/id_ed25519": `${KEY}\n`, ".aws/credentials": `${CREDENTIALS}\n` }));
  key = join(secrets, ".ssh", "id_ed25519");
  credentials = join(secrets, ".aws", "credentials");
});
afterAll(() => removeSecrets());

function firstParty(name: string): (typeof FIRST_PARTY)[number] {
  const entry = FIRST_PARTY.find(({ path }) => path.endsWith(`/${name}`));
  if (entry === undefined) throw new Error(`helpers.ts lists no first-party plugin ${name}`);
  return entry;
}

/** A config in `dir` (its own workspace) with `plugins`; `sandbox` "auto" unless given. */
async function configIn(dir: string, plugins: readonly object[], extra: Record<string, unknown> = {}, name = "plugboard.config.json"): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, JSON.stringify({ workspace: ".", sandbox: "auto", plugins, ...extra }, null, 2));
  return path;
}

const call = (config: string, tool: string, args: object, cwd: string): Promise<Finished> =>
  plugboard(["call", "--config", config, tool, JSON.stringify(args)], { cwd });
const bash = (config: string, command: string, cwd: string) => call(config, "bash", { command }, cwd);

/**
 * A plugin granted nothing, installed in the workspace's node_modules as `plugboard plugin
 * add` installs one, whose tool reads the absolute path it is given. It imports core by its
 * real path: the workspace has no @plugboard/core of its own.
 */
function readerPlugin(): Record<string, string> {
  const manifest = {
    name: "reader",
    version: "1.0.0",
    contract: "^1.0.0",
    entry: "./src/index.ts",
    tools: [{ name: "read_anywhere", description: "Read a file by its absolute path." }],
    permissions: [],
  };
  const code = `import { readFileSync } from "node:fs";
import { definePlugin, defineTool, textResult, Type } from ${JSON.stringify(CORE)};

export default definePlugin({
  options: Type.Object({}),
  tools: () => [
    defineTool({
      name: "read_anywhere",
      description: "Read a file by its absolute path.",
      parameters: Type.Object({ path: Type.String() }),
      handler: async ({ path }) => textResult(readFileSync(path, "utf8")),
    }),
  ],
});
`;
  return {
    "node_modules/reader/package.json": JSON.stringify({ name: "reader", version: "1.0.0", type: "module" }),
    "node_modules/reader/plugboard.plugin.json": JSON.stringify(manifest),
    "node_modules/reader/src/index.ts": code,
  };
}

/** The workspace of door 1 with two configs: the reader and bash confined, and both unconfined. */
async function readerWorkspace() {
  const folder = await tempFolder(readerPlugin());
  const plugins = [{ package: "reader", permissions: [] }, BASH];
  const confined = await configIn(folder.dir, plugins);
  const unconfined = await configIn(folder.dir, plugins, { sandbox: "off" }, "plugboard.off.json");
  return { ...folder, confined, unconfined };
}

describe("1. a workspace write opens the whole disk to read", () => {
  test("links to / planted in node_modules do not widen a plugin's view: a new host reads nothing outside", async () => {
    await using ws = await readerWorkspace();
    const links = "ln -s / node_modules/.x && mkdir -p node_modules/reader/node_modules && ln -s / node_modules/reader/node_modules/x";
    // node_modules holds an enabled plugin: it is code, read-only to every confined process now.
    const refused = await bash(ws.confined, links, ws.dir);
    expect(refused.stdout).toContain("Read-only file system");
    // Links left there some other way (a session with the sandbox off) are still not followed out of the workspace.
    const planted = await bash(ws.unconfined, links, ws.dir);
    expect(planted.stdout).toEndWith("exit code: 0\n");
    const paths = [key, join(ws.dir, "node_modules/.x", key), join(ws.dir, "node_modules/reader/node_modules/x", key)];
    // Reads change nothing: the paths are read at once, confined, then unconfined.
    await Promise.all(
      paths.map(async (path) => {
        const read = await call(ws.confined, "read_anywhere", { path }, ws.dir);
        expect({ path, code: read.code, leaked: read.stdout.includes(KEY) }).toEqual({ path, code: 1, leaked: false });
        expect(read.stdout).toStartWith("Error: Refused by the sandbox (reader is granted no permissions): ENOENT");
      }),
    );
    await Promise.all(
      paths.map(async (path) => {
        const read = await call(ws.unconfined, "read_anywhere", { path }, ws.dir);
        expect({ path, code: read.code, stdout: read.stdout }).toEqual({ path, code: 0, stdout: `${KEY}\n` });
      }),
    );
  }, TIMEOUT_MS);

  test("links planted as the config files Bun reads up the tree (tsconfig.base.json) do not widen it either", async () => {
    await using ws = await readerWorkspace();
    // One link to a file, one to a folder, each named as a file the code closure looks for above a package.
    // The one in node_modules is refused now (an enabled plugin's code); left by a session with the sandbox off, it is still not followed.
    expect((await bash(ws.confined, `ln -s ${join(secrets, ".aws")} node_modules/tsconfig.base.json`, ws.dir)).stdout).toContain("Read-only file system");
    expect((await bash(ws.unconfined, `ln -s ${join(secrets, ".aws")} node_modules/tsconfig.base.json`, ws.dir)).stdout).toEndWith("exit code: 0\n");
    const planted = await bash(ws.confined, `ln -s ${key} tsconfig.base.json`, ws.dir);
    expect(planted.stdout).toEndWith("exit code: 0\n");
    const secretsOf = { [key]: KEY, [credentials]: CREDENTIALS };
    const leaked: string[] = [];
    await Promise.all(
      Object.entries(secretsOf).map(async ([path, secret]) => {
        const read = await call(ws.confined, "read_anywhere", { path }, ws.dir);
        if (read.stdout.includes(secret)) leaked.push(path);
      }),
    );
    expect(leaked).toEqual([]);
    await Promise.all(
      Object.entries(secretsOf).map(async ([path, secret]) => {
        expect(await call(ws.unconfined, "read_anywhere", { path }, ws.dir)).toMatchObject({ code: 0, stdout: `${secret}\n` });
      }),
    );
  }, TIMEOUT_MS);
});

describe("2. local daemons' UNIX sockets are reachable without network", () => {
  let dir = "";
  let remove = async () => {};
  /** tmux servers: one whose socket is in a 0700 folder outside the workspace, one whose socket is inside it. */
  const sockets = { outside: "", inside: "" };

  beforeAll(async () => {
    ({ dir, remove } = await tempFolder({ "workspace/.keep": "", "off/.keep": "" }));
    sockets.outside = join(secrets, "tmux", "default");
    sockets.inside = join(dir, "workspace", ".tmux", "default");
    for (const socket of Object.values(sockets)) {
      Bun.spawnSync(["mkdir", "-p", "-m", "700", join(socket, "..")]);
      const started = Bun.spawnSync(["tmux", "-S", socket, "new-session", "-d", "sleep 300"], { env: cleanEnv() });
      if (started.exitCode !== 0) throw new Error(`tmux did not start: ${started.stderr}`);
    }
  });
  afterAll(async () => {
    for (const socket of Object.values(sockets)) Bun.spawnSync(["tmux", "-S", socket, "kill-server"]);
    await remove();
  });

  const attack = (workspace: string) =>
    Object.entries(sockets)
      .map(([where, socket]) => `tmux -S ${socket} run-shell "cat ${key} > ${join(workspace, `loot-${where}.txt`)}"`)
      .join("; ");

  test("bash without network cannot drive a tmux server, wherever its socket lives", async () => {
    const workspace = join(dir, "workspace");
    const config = await configIn(workspace, [BASH]);
    const result = await bash(config, attack(workspace), workspace);
    expect(result.stdout).toContain(`error connecting to ${sockets.outside}`);
    expect(result.stdout).toContain(`error connecting to ${sockets.inside}`);
    expect(existsSync(join(workspace, "loot-outside.txt"))).toBe(false);
    expect(existsSync(join(workspace, "loot-inside.txt"))).toBe(false);

    const unconfined = await configIn(join(dir, "off"), [BASH], { workspace: "../workspace", sandbox: "off" });
    await bash(unconfined, attack(workspace), workspace);
    expect(await readFile(join(workspace, "loot-outside.txt"), "utf8")).toBe(`${KEY}\n`);
    expect(await readFile(join(workspace, "loot-inside.txt"), "utf8")).toBe(`${KEY}\n`);
  }, TIMEOUT_MS);
});

describe("3. other terminals are readable", () => {
  test("a terminal held open elsewhere is not in a confined /dev; unconfined it opens", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "", "off/.keep": "" });
    const workspace = join(folder.dir, "workspace");
    const holder = Bun.spawn(["script", "-q", "-c", "sleep 30", "/dev/null"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    try {
      const terminal = await waitFor("script opened its pseudo-terminal", () => terminalOf(holder.pid), { timeoutMs: 5000 });
      const config = await configIn(workspace, [BASH]);
      const tries = `test -e ${terminal} && echo visible || echo "no ${terminal}"; cat ${terminal}; ls /dev/pts`;
      const confined = await bash(config, tries, workspace);
      expect(confined.stdout).toContain(`no ${terminal}\n`);
      expect(confined.stdout).toContain(`cat: ${terminal}: No such file or directory`);
      expect(confined.stdout).not.toContain("visible");

      const unconfined = await configIn(join(folder.dir, "off"), [BASH], { workspace: "../workspace", sandbox: "off" });
      const opened = await bash(unconfined, `test -r ${terminal} && echo readable; (exec 3< ${terminal}) && echo opened`, workspace);
      expect(opened.stdout).toStartWith("readable\nopened\n");
    } finally {
      killAll(childrenOf(holder.pid));
      holder.kill("SIGKILL");
      await holder.exited;
    }
  }, TIMEOUT_MS);
});

describe("4. the project's own control files are writable", () => {
  const POLICY = { rules: [{ tool: "bash", args: { command: "*curl*" }, action: "deny" }] };
  const AUDIT_LINE = '{"ts":"2026-01-01T00:00:00.000Z","tool":"bash","decision":"deny"}\n';
  /** Each attempt on its own line, so each fails or works by itself; the rename comes last. */
  const ATTACK = [
    "printf '#!/bin/sh\\necho planted hook\\n' > .git/hooks/pre-commit",
    "git config core.hooksPath hooks-of-mine",
    "sed s/deny/allow/ plugboard.config.json > rewritten.json && cat rewritten.json > plugboard.config.json",
    "mv rewritten.json plugboard.config.json",
    ": > audit.jsonl",
    `echo '{"tool":"bash","decision":"allow","forged":true}' >> audit.jsonl`,
    "echo MODEL_API_KEY=sk-planted >> .env",
    "mv .git .git-old",
  ].join("\n");

  /** A git repository holding its config, .env and audit log, as a project does. */
  async function project(sandbox: "auto" | "off") {
    const folder = await tempFolder({ "notes.txt": "hello\n", ".env": "MODEL_NAME=gpt-4.1-mini\n", "audit.jsonl": AUDIT_LINE });
    Bun.spawnSync(["git", "init", "-q"], { cwd: folder.dir });
    const config = await configIn(folder.dir, [BASH], { sandbox, audit: "audit.jsonl", policy: POLICY });
    return { ...folder, config };
  }

  const snapshot = async (dir: string) => ({
    config: await readFile(join(dir, "plugboard.config.json"), "utf8"),
    env: await readFile(join(dir, ".env"), "utf8"),
    gitConfig: await readFile(join(dir, ".git/config"), "utf8"),
    hooks: readdirSync(join(dir, ".git/hooks")).sort(),
  });

  test("confined bash with fs.write changes none of them; a commit still works; unconfined every write lands", async () => {
    await using ws = await project("auto");
    const before = await snapshot(ws.dir);
    const attacked = await bash(ws.config, ATTACK, ws.dir);
    expect(attacked.stdout).toContain(".git/hooks/pre-commit: Read-only file system");
    expect(await snapshot(ws.dir)).toEqual(before);
    expect(existsSync(join(ws.dir, ".git-old"))).toBe(false);
    const audit = await readFile(join(ws.dir, "audit.jsonl"), "utf8");
    // The app appends its own line for the call; what was there stays, and nothing forged is added.
    expect(audit).toStartWith(AUDIT_LINE);
    expect(audit).not.toContain('"forged"');

    const commit = await bash(ws.config, 'git add notes.txt && git -c user.name=Doors -c user.email=doors@example.com commit -q -m "from the sandbox" && git log --format=%s', ws.dir);
    expect(commit.stdout).toBe("from the sandbox\nexit code: 0\n");
    expect(Bun.spawnSync(["git", "log", "--format=%s"], { cwd: ws.dir }).stdout.toString()).toBe("from the sandbox\n");

    await using twin = await project("off");
    await bash(twin.config, ATTACK, twin.dir);
    expect(await readFile(join(twin.dir, ".git-old/hooks/pre-commit"), "utf8")).toContain("echo planted hook");
    expect(await readFile(join(twin.dir, ".git-old/config"), "utf8")).toContain("hooksPath = hooks-of-mine");
    expect(await readFile(join(twin.dir, "plugboard.config.json"), "utf8")).toContain('"action": "allow"');
    expect(await readFile(join(twin.dir, "audit.jsonl"), "utf8")).toStartWith('{"tool":"bash","decision":"allow","forged":true}\n');
    expect(await readFile(join(twin.dir, ".env"), "utf8")).toContain("MODEL_API_KEY=sk-planted");
  }, TIMEOUT_MS);

  /**
   * `plugboard` as it is installed: executed through its `#!/usr/bin/env bun` line, in the
   * folder a person works in (Bun then reads that folder's bunfig.toml and .env files).
   */
  async function asInstalled(args: readonly string[], cwd: string): Promise<Finished> {
    return started([MAIN, ...args], cwd);
  }

  /** The twin: the same entry under a plain `bun`, which reads the folder's bunfig.toml and .env files. */
  async function asPlainBun(args: readonly string[], cwd: string): Promise<Finished> {
    return started([process.execPath, MAIN, ...args], cwd);
  }

  async function started(argv: readonly string[], cwd: string): Promise<Finished> {
    const child = Bun.spawn([...argv], { cwd, env: cleanEnv(), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return { code, stdout, stderr };
  }

  /** A workspace that is also the folder plugboard runs in, with a confined config and an unconfined one. */
  async function workingFolder(files: Record<string, string> = {}) {
    const folder = await tempFolder(files);
    const confined = await configIn(folder.dir, [BASH]);
    const unconfined = await configIn(folder.dir, [BASH], { sandbox: "off" }, "plugboard.off.json");
    return { ...folder, confined, unconfined };
  }

  test("a bunfig.toml planted in the folder plugboard runs in does not run code in the next plugboard", async () => {
    const plant = (dir: string) =>
      `printf 'preload = ["./preload.ts"]\\n' > bunfig.toml; echo 'require("node:fs").copyFileSync(${JSON.stringify(key)}, ${JSON.stringify(join(dir, "loot.txt"))});' > preload.ts`;
    await using ws = await workingFolder();
    await bash(ws.confined, plant(ws.dir), ws.dir);
    await asInstalled(["call", "--config", ws.confined, "bash", '{"command":"true"}'], ws.dir);
    expect(existsSync(join(ws.dir, "loot.txt"))).toBe(false);

    await using twin = await workingFolder();
    await bash(twin.unconfined, plant(twin.dir), twin.dir);
    await asPlainBun(["call", "--config", twin.confined, "bash", '{"command":"true"}'], twin.dir);
    expect(await readFile(join(twin.dir, "loot.txt"), "utf8")).toBe(`${KEY}\n`);
  }, TIMEOUT_MS);

  test("an .env.local planted there does not turn the sandbox off for the next plugboard", async () => {
    const plant = "echo PLUGBOARD_SANDBOX_DISABLE=namespaces > .env.local";
    const read = JSON.stringify({ command: `cat ${key}` });
    await using ws = await workingFolder();
    await bash(ws.confined, plant, ws.dir);
    const next = await asInstalled(["call", "--config", ws.confined, "bash", read], ws.dir);
    expect(next.stdout).toContain(`cat: ${key}: No such file or directory`);
    expect(next.stderr).not.toContain("plugins run unconfined");

    await using twin = await workingFolder();
    await bash(twin.unconfined, plant, twin.dir);
    const unconfined = await asPlainBun(["call", "--config", twin.confined, "bash", read], twin.dir);
    expect(unconfined.stdout).toStartWith(`${KEY}\n`);
  }, TIMEOUT_MS);

  test("a plugboard.config.json planted beside the project's plugboard.config.jsonc does not silently replace it", async () => {
    const jsonc = (sandbox: string) => `// the project's config\n${JSON.stringify({ workspace: ".", sandbox, plugins: [BASH] })}\n`;
    const plant = `sed s/required/off/ plugboard.config.jsonc > plugboard.config.json`;
    const read = JSON.stringify({ command: `cat ${key}` });
    await using ws = await tempFolder({ "plugboard.config.jsonc": jsonc("required") });
    await asInstalled(["call", "bash", JSON.stringify({ command: plant })], ws.dir);
    // Two local configs: which one is meant is not guessed, and nothing runs.
    const next = await asInstalled(["call", "bash", read], ws.dir);
    expect(next).toMatchObject({ code: 2, stdout: "" });
    expect(next.stderr).toContain(`Both ${join(ws.dir, "plugboard.config.json")} and ${join(ws.dir, "plugboard.config.jsonc")} exist`);

    await using twin = await tempFolder({ "plugboard.config.jsonc": jsonc("required"), "off/.keep": "" });
    const off = await configIn(join(twin.dir, "off"), [BASH], { workspace: "..", sandbox: "off" });
    await asInstalled(["call", "--config", off, "bash", JSON.stringify({ command: plant })], twin.dir);
    // What it would have done, had it been taken: the planted config turns the sandbox off.
    const taken = await asInstalled(["call", "--config", "plugboard.config.json", "bash", read], twin.dir);
    expect(taken.stderr).toBe("");
    expect(taken.stdout).toStartWith(`${KEY}\n`);
  }, TIMEOUT_MS);
});

describe("5. a stdio MCP server's arguments widen its view", () => {
  test('a server granted nothing, started with "." and an outside folder as arguments, reads neither', async () => {
    await using ws = await tempFolder({ ".env": "SERVICE_TOKEN=tok-doors\n" });
    const server = (extra: object) => ({ mcp: { command: READING_SERVER, args: [".", join(secrets, ".ssh")] }, name: "srv", permissions: [], ...extra });
    const confined = await configIn(ws.dir, [server({})]);
    const unconfined = await configIn(ws.dir, [server({ sandbox: false })], {}, "plugboard.off.json");
    const reads = [
      [".env", "SERVICE_TOKEN=tok-doors\n"],
      [join(ws.dir, ".env"), "SERVICE_TOKEN=tok-doors\n"],
      [key, `${KEY}\n`],
    ] as const;
    // Reads change nothing: they start at once.
    await Promise.all(
      reads.map(async ([path]) => {
        const read = await call(confined, "read", { path }, ws.dir);
        expect({ path, code: read.code, stdout: read.stdout }).toEqual({ path, code: 1, stdout: expect.stringContaining(`cannot read ${path}: ENOENT`) });
      }),
    );
    await Promise.all(
      reads.map(async ([path, content]) => {
        expect({ path, ...(await call(unconfined, "read", { path }, ws.dir)) }).toMatchObject({ path, code: 0, stdout: content });
      }),
    );
  }, TIMEOUT_MS);
});

describe("6b. a confined MCP server is not PID 1 either", () => {
  test("the first process of its tree is our init, the server its child", async () => {
    await using ws = await tempFolder({ ".keep": "" });
    const config = await configIn(ws.dir, [{ mcp: { command: READING_SERVER }, name: "srv", permissions: [] }]);
    const first = await call(config, "read", { path: "/proc/1/cmdline" }, ws.dir);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("src/process/init.ts");
    expect(first.stdout).toContain(READING_SERVER);
    // Unconfined, the server runs as a child of the app, with no init of ours above it.
    const off = await configIn(ws.dir, [{ mcp: { command: READING_SERVER }, name: "srv", permissions: [], sandbox: false }], {}, "plugboard.off.json");
    expect((await call(off, "read", { path: "/proc/self/cmdline" }, ws.dir)).stdout).not.toContain("src/process/init.ts");
  }, TIMEOUT_MS);
});

describe("6. the command is PID 1", () => {
  test("kill -TERM $$ ends the command: the result says Terminated by SIGTERM and nothing after the kill runs", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "", "off/.keep": "" });
    const workspace = join(folder.dir, "workspace");
    const config = await configIn(workspace, [BASH]);
    const result = await bash(config, "echo before; kill -TERM $$; echo after", workspace);
    expect(result.stdout).toBe("before\nTerminated by SIGTERM\n");

    // Without an init of ours the shell is PID 1 of its namespace, and the kernel drops the signal it sends itself.
    const unconfined = await configIn(join(folder.dir, "off"), [BASH], { workspace: "../workspace", sandbox: "off" });
    const asPid1 = await bash(unconfined, "unshare --user --map-root-user --pid --fork bash -c 'echo before; kill -TERM $$; echo after'", workspace);
    expect(asPid1.stdout).toBe("before\nafter\nexit code: 0\n");
  }, TIMEOUT_MS);
});

describe("nothing a host creates outlives it, even when the app is killed with SIGKILL", () => {
  async function killedMidCall(sandbox: "auto" | "off") {
    const folder = await tempFolder({ "workspace/.keep": "", "tmp/.keep": "" });
    const workspace = join(folder.dir, "workspace");
    const temp = join(folder.dir, "tmp");
    const marker = uniqueMarker();
    const config = await configIn(workspace, [BASH], { sandbox });
    const command = `touch started; (exec -a ${marker} sleep 300) & exec -a ${marker} sleep 300`;
    const cli = spawnPlugboard(["call", "--config", config, "bash", JSON.stringify({ command }), "--yes"], { cwd: folder.dir, env: { TMPDIR: temp } });
    await waitFor("the command started", () => existsSync(join(workspace, "started")), { timeoutMs: 10_000 });
    const needles = [folder.dir, marker];
    // The census sees the call's processes before the kill.
    expect(processesMentioning(needles).length).toBeGreaterThan(0);
    cli.kill("SIGKILL");
    await cli.exited;
    return { folder, temp, needles };
  }

  test("confined: no process of the host remains and its temporary folder holds nothing of it", async () => {
    const { folder, temp, needles } = await killedMidCall("auto");
    await using _ = folder;
    expect(await survivors(() => processesMentioning(needles), 3000)).toEqual([]);
    expect(readdirSync(temp).filter((name) => name.startsWith("plugboard-host-"))).toEqual([]);
  }, TIMEOUT_MS);

  test("unconfined (the twin): the command's processes outlive the killed app", async () => {
    const { folder, needles } = await killedMidCall("off");
    await using _ = folder;
    // Time they would need to be gone, were anything ending them.
    await Bun.sleep(1000);
    const outliving = processesMentioning(needles);
    killAll(outliving);
    expect(outliving.length).toBeGreaterThan(0);
  }, TIMEOUT_MS);
});

/** Pids of the running (not zombie) processes whose command line contains any of `needles`. */
function processesMentioning(needles: readonly string[]): number[] {
  return processesWhere((process) => process.argv.some((arg) => needles.some((needle) => arg.includes(needle))));
}
