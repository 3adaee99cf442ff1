/**
 * A refusal explains itself, for real: commands of the real bash plugin, the greedy
 * fixture's operations and a stdio MCP server's, refused by the real sandbox, end with the
 * line naming the grant that would allow them; with that grant, or unconfined, they do not.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { configWith, fixture, removeTempDirs, tempDir } from "../../test/temp-app.ts";
import { type App, buildApp } from "../index.ts";
import type { Permission } from "@plugboard/core";

// Real host processes: a busy machine needs more than bun's default 5 s per test.
setDefaultTimeout(30_000);

const BASH = join(import.meta.dir, "../../../../plugins/bash");
const SERVER = join(import.meta.dir, "../../../mcp/test/fixture-server.ts");
const REFUSED = "plugboard: refused by the sandbox: ";
const apps: App[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await removeTempDirs();
});

async function appOf(entry: Record<string, unknown>, sandbox: "auto" | "off", prepare?: (workspace: string) => Promise<void>): Promise<App> {
  const workspace = await tempDir();
  await prepare?.(workspace);
  const app = await buildApp(await configWith([entry], workspace, sandbox));
  apps.push(app);
  return app;
}

const bashApp = (sandbox: "auto" | "off", extra: Permission[] = [], prepare?: (workspace: string) => Promise<void>) =>
  appOf({ path: BASH, permissions: ["process.spawn", "fs.read", "fs.write", ...extra] }, sandbox, prepare);

async function bash(app: App, command: string): Promise<string> {
  return (await app.runtime.execute("bash", JSON.stringify({ command }))).content;
}

const lastLine = (text: string) => text.split("\n").at(-1);

describe("confined bash", () => {
  test("a connection without network ends with the network grant; with it, or unconfined, no hint", async () => {
    using server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("served") });
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const closedPort = closed.port;
    closed.stop(true);
    const confined = await bashApp("auto");
    const grant = `${REFUSED}@plugboard/plugin-bash has no network access; grant "network" to it in ${confined.config.configPath} to allow it`;

    const curl = await bash(confined, `curl -sS http://127.0.0.1:${server.port}`);
    expect(curl).toContain("curl: (7)");
    expect(curl).toEndWith(`\nexit code: 7\n${grant}`);
    const devTcp = await bash(confined, `exec 3<>/dev/tcp/127.0.0.1/${server.port} && echo connected`);
    expect(devTcp).toContain("Operation not permitted");
    expect(devTcp).toEndWith(`\nexit code: 1\n${grant}`);

    const granted = await bashApp("auto", ["network"]);
    expect(await bash(granted, `curl -sS http://127.0.0.1:${server.port}`)).toBe("served\nexit code: 0");
    // A closed port's refusal is then the peer's answer, not the sandbox's.
    const refusedByPeer = await bash(granted, `curl -sS http://127.0.0.1:${closedPort}`);
    expect(refusedByPeer).toContain("Failed to connect");
    expect(refusedByPeer).not.toContain(REFUSED);
    const unconfined = await bash(await bashApp("off"), `curl -sS http://127.0.0.1:${closedPort}`);
    expect(unconfined).toContain("Failed to connect");
    expect(unconfined).not.toContain(REFUSED);
  });

  test("a write to .git/hooks/ ends with the protected path's rule; unconfined it works", async () => {
    const gitInit = async (workspace: string) => {
      await Bun.$`git init -q ${workspace}`;
    };
    const command = "echo x > .git/hooks/pre-commit";
    const confined = await bash(await bashApp("auto", [], gitInit), command);
    expect(confined).toContain(".git/hooks/pre-commit: Read-only file system");
    expect(lastLine(confined)).toBe(`${REFUSED}@plugboard/plugin-bash may not write .git/hooks/pre-commit: it is a protected path (.git/hooks/, always protected)`);
    expect(await bash(await bashApp("off", [], gitInit), command)).toBe("(no output)\nexit code: 0");
  });

  test("a read of a file outside the workspace ends with what the plugin can see; unconfined it works", async () => {
    const secret = join(await tempDir(), "api.secret");
    writeFileSync(secret, "sk-outside\n");
    const app = await bashApp("auto");
    const confined = await bash(app, `cat ${secret}`);
    expect(confined).toContain(`${secret}: No such file or directory`);
    expect(lastLine(confined)).toBe(`${REFUSED}${secret} is outside what @plugboard/plugin-bash can see (its own code, the system's folders, the paths its entry grants and, with fs.read, the workspace); add "read": [${JSON.stringify(secret)}] to its entry in ${app.config.configPath} to let it read it`);
    expect(await bash(await bashApp("off"), `cat ${secret}`)).toBe("sk-outside\nexit code: 0");
  });

  test("a missing workspace file is no refusal", async () => {
    expect(await bash(await bashApp("auto"), "cat missing.txt")).toBe("[stderr]\ncat: missing.txt: No such file or directory\nexit code: 1");
  });
});

describe("a confined plugin's thrown refusals", () => {
  const attempt = async (app: App, op: string, target?: string) =>
    (await app.runtime.execute("attempt", JSON.stringify(target === undefined ? { op } : { op, target }))).content;

  test("name the grant its manifest offers, or say that it offers none", async () => {
    const app = await appOf({ path: fixture("greedy"), permissions: ["fs.read"] }, "auto");
    const { configPath } = app.config;
    using server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    expect(lastLine(await attempt(app, "connect", String(server.port)))).toBe(
      `${REFUSED}@fixture/greedy has no network access; grant "network" to it in ${configPath} to allow it`,
    );
    expect(lastLine(await attempt(app, "write", join(app.workspace.root, "a.txt")))).toBe(
      `${REFUSED}@fixture/greedy may not write a.txt; its manifest does not ask for "fs.write", so no config can grant it`,
    );
    expect(lastLine(await attempt(app, "spawn"))).toBe(`${REFUSED}@fixture/greedy may not run /bin/sh; its manifest does not ask for "process.spawn", so no config can grant it`);
    const granted = await appOf({ path: fixture("greedy"), permissions: ["fs.read", "network"] }, "auto");
    expect(await attempt(granted, "connect", String(server.port))).toBe(`connected to ${server.port}`);
  });
});

describe("a confined stdio MCP server", () => {
  // The script is the command (its package is then readable): an argument never widens what a server sees.
  const serverEntry = (extra: Record<string, unknown>) => ({ mcp: { command: SERVER }, name: "fixture", ...extra });
  const call = async (app: App, tool: string, args: Record<string, unknown> = {}) => (await app.runtime.execute(tool, JSON.stringify(args))).content;

  test("a program it may not run ends with the process.spawn grant; granted, or unconfined, it runs", async () => {
    const confined = await appOf(serverEntry({ permissions: [] }), "auto");
    const refused = await call(confined, "spawn_child");
    expect(refused).toContain("EACCES");
    expect(lastLine(refused)).toBe(`${REFUSED}fixture may not run sleep; grant "process.spawn" to it in ${confined.config.configPath} to let it run programs`);
    // Confined, the child ends with the server's PID namespace; unconfined, it is killed here.
    expect(await call(await appOf(serverEntry({ permissions: ["process.spawn"] }), "auto"), "spawn_child")).toMatch(/^\d+$/);
    const unconfined = await call(await appOf(serverEntry({ permissions: [], sandbox: false }), "auto"), "spawn_child");
    expect(unconfined).toMatch(/^\d+$/);
    process.kill(Number(unconfined), "SIGKILL");
  });

  test("a read-only tool's successful result is what it read, never taken for a refusal", async () => {
    const message = "curl: (6) Could not resolve host: example.com";
    expect(await call(await appOf(serverEntry({ permissions: [] }), "auto"), "echo", { message })).toBe(message);
  });
});
