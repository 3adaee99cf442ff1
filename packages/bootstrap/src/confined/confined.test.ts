/**
 * Confined plugins, attacked for real: a fixture plugin that declares only `fs.read` tries
 * to write outside, spawn, connect and read the model key. Confined, each attempt comes
 * back as an `Error:` result and the app goes on; with `"sandbox": "off"` the same attempts
 * succeed, so these tests fail if the sandbox does nothing.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, rename, rm, symlink } from "node:fs/promises";
import { join } from "node:path";
import { hostsOf } from "../../test/hosts.ts";
import { configWith, fixture, removeTempDirs, tempDir } from "../../test/temp-app.ts";
import { killAll, runningNamed, survivorsNamed, uniqueMarker, waitFor } from "@plugboard/test-helpers";
import { type App, buildApp } from "../index.ts";

// Real host processes: a busy machine needs more than bun's default 5 s per test.
setDefaultTimeout(30_000);

const SECRET = "sk-confined-test";
const apps: App[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await removeTempDirs();
});
beforeAll(() => {
  process.env.MODEL_API_KEY = SECRET;
});
afterAll(() => {
  delete process.env.MODEL_API_KEY;
});

async function greedyApp(sandbox: "auto" | "off", permissions: string[] = ["fs.read"]): Promise<App> {
  const app = await buildApp(await configWith([{ path: fixture("greedy"), permissions }], undefined, sandbox));
  apps.push(app);
  return app;
}

const attempt = (app: App, op: string, target?: string) =>
  app.runtime.execute("attempt", JSON.stringify(target === undefined ? { op } : { op, target }));

describe("a plugin granted only fs.read", () => {
  test("runs confined in its host", async () => {
    const app = await greedyApp("auto");
    expect(app.sandbox.confined).toEqual(["@fixture/greedy"]);
    expect(app.sandbox.summary).toStartWith("Landlock ABI");
  });

  test("cannot write outside the workspace", async () => {
    const outside = join(await tempDir(), "outside.txt");
    const confined = await attempt(await greedyApp("auto"), "write", outside);
    expect(confined.isError).toBe(true);
    expect(confined.content).toStartWith("Error: Refused by the sandbox (@fixture/greedy is granted fs.read): ENOENT");
    expect(existsSync(outside)).toBe(false);
    expect(await attempt(await greedyApp("off"), "write", outside)).toEqual({ content: `wrote ${outside}`, isError: false });
    expect(existsSync(outside)).toBe(true);
  });

  test("cannot spawn a program", async () => {
    const confined = await attempt(await greedyApp("auto"), "spawn");
    expect(confined.isError).toBe(true);
    expect(confined.content).toContain("EACCES");
    expect(await attempt(await greedyApp("off"), "spawn")).toEqual({ content: "spawned", isError: false });
  });

  test("cannot connect to a listening 127.0.0.1 port", async () => {
    using server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = String(server.port);
    const confined = await attempt(await greedyApp("auto"), "connect", port);
    expect(confined.isError).toBe(true);
    expect(confined.content).toStartWith("Error: ");
    expect(await attempt(await greedyApp("off"), "connect", port)).toEqual({ content: `connected to ${port}`, isError: false });
  });

  test("a refused connection to a closed port is the sandbox's only without the network grant", async () => {
    const closed = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = String(closed.port);
    closed.stop(true);
    const confined = await attempt(await greedyApp("auto"), "connect", port);
    expect(confined.content).toStartWith("Error: Refused by the sandbox (@fixture/greedy is granted fs.read)");
    // With the grant, the refusal is the peer's: the handler's uncaught error is its bug, as in the app's process.
    await expect(attempt(await greedyApp("auto", ["fs.read", "network"]), "connect", port)).rejects.toThrow(
      "Tool attempt (plugin @fixture/greedy) failed in its handler: Error: Failed to connect",
    );
  });

  test("cannot read MODEL_API_KEY from its environment or from the app's /proc/PID/environ", async () => {
    // /proc/PID/environ holds the environment a process started with: an app started with the key.
    const app = Bun.spawn(["sleep", "60"], { env: { ...process.env, MODEL_API_KEY: SECRET } });
    try {
      const confined = await greedyApp("auto");
      // The fixture throws when the key is not there: a PluginError, as in the app's process.
      await expect(attempt(confined, "env")).rejects.toThrow("MODEL_API_KEY is not in this process's environment");
      const fromProc = await attempt(confined, "environ", String(app.pid));
      expect(fromProc.isError).toBe(true);
      expect(fromProc.content).toContain("ENOENT");
      const off = await greedyApp("off");
      expect(await attempt(off, "env")).toEqual({ content: `MODEL_API_KEY=${SECRET}`, isError: false });
      expect(await attempt(off, "environ", String(app.pid))).toEqual({ content: `MODEL_API_KEY=${SECRET}`, isError: false });
    } finally {
      app.kill("SIGKILL");
    }
  });

  test("the app goes on after each refusal: the next call works", async () => {
    const app = await greedyApp("auto");
    await attempt(app, "spawn");
    expect(await attempt(app, "sleep", "1")).toEqual({ content: "slept", isError: false });
  });
});

test("a path check raced with a symlink swap still cannot write outside", async () => {
  const outside = await tempDir();
  const run = async (sandbox: "auto" | "off") => {
    const workspace = await tempDir();
    const app = await buildApp(await configWith([{ path: fixture("raced"), permissions: ["fs.read", "fs.write"] }], workspace, sandbox));
    apps.push(app);
    await mkdir(join(workspace, "sub"));
    const writing = app.runtime.execute("raced_write", JSON.stringify({ path: "sub/file.txt", pause_ms: 300 }));
    // While the tool pauses between its check and its write, `sub` becomes a link to outside.
    await Bun.sleep(100);
    await rename(join(workspace, "sub"), join(workspace, "sub-was"));
    await symlink(outside, join(workspace, "sub"));
    return writing;
  };
  const confined = await run("auto");
  expect(confined.isError).toBe(true);
  expect(confined.content).toMatch(/Refused by the sandbox .*: (EACCES|ENOENT)/);
  expect(existsSync(join(outside, "file.txt"))).toBe(false);
  expect((await run("off")).isError).toBe(false);
  expect(existsSync(join(outside, "file.txt"))).toBe(true);
  await rm(join(outside, "file.txt"));
});

describe("plugin hosts", () => {
  test("a host that dies fails the running call with an Error: result and is started again on the next call", async () => {
    const app = await greedyApp("auto");
    const died = await attempt(app, "exit");
    expect(died.isError).toBe(true);
    expect(died.content).toStartWith("Error: ");
    expect(await attempt(app, "sleep", "1")).toEqual({ content: "slept", isError: false });

    // Killed from outside while a call runs: the same.
    const running = attempt(app, "sleep", "30000");
    await waitFor("the host appears in /proc", () => hostsOf(app.workspace.root).length > 0, { timeoutMs: 10_000 });
    killAll(hostsOf(app.workspace.root));
    const killed = await running;
    expect(killed.isError).toBe(true);
    expect(killed.content).toStartWith("Error: ");
    expect(await attempt(app, "sleep", "1")).toEqual({ content: "slept", isError: false });
  });

  test("cancelling a call ends it at once with an Error: result", async () => {
    const app = await greedyApp("auto");
    const controller = new AbortController();
    const running = app.runtime.execute("attempt", JSON.stringify({ op: "sleep", target: "30000" }), { signal: controller.signal });
    await Bun.sleep(200);
    const started = Date.now();
    controller.abort();
    const result = await running;
    expect(result.isError).toBe(true);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  test("hosts end with the app, even when the app is killed", async () => {
    const workspace = await tempDir();
    const config = await configWith([{ path: fixture("greedy"), permissions: ["fs.read"] }], workspace, "auto");
    const app = Bun.spawn([process.execPath, join(import.meta.dir, "../../test/hold-app.ts"), config.configPath], { stdout: "pipe" });
    const reader = app.stdout.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("ready\n");
    expect(hostsOf(workspace).length).toBeGreaterThan(0);
    app.kill("SIGKILL");
    await app.exited;
    await waitFor("every plugin host has ended with its app", () => hostsOf(workspace).length === 0, { timeoutMs: 10_000 });
  });
});

test("a stdio MCP server is confined by its entry's grants: without process.spawn it cannot start a program", async () => {
  // The script is the command (its package is then readable): an argument never widens what a server sees.
  const server = { mcp: { command: join(import.meta.dir, "../../../mcp/test/fixture-server.ts") }, name: "fixture", permissions: ["fs.read"] };
  const run = async (sandbox: "auto" | "off") => {
    const app = await buildApp(await configWith([server], undefined, sandbox));
    apps.push(app);
    return app.runtime.execute("spawn_child", "{}");
  };
  const confined = await run("auto");
  expect(confined.isError).toBe(true);
  expect(confined.content).toContain("EACCES");
  const off = await run("off");
  expect(off.isError).toBe(false);
  process.kill(Number(off.content), "SIGKILL");
});

test("write_file and read_file raced with symlink swaps over 1,200 calls write and read nothing outside", async () => {
  const plugins = join(import.meta.dir, "../../../../plugins");
  const workspace = await tempDir();
  const outside = await tempDir();
  await Bun.write(join(outside, "secret.txt"), "OUTSIDE-SECRET\n");
  await mkdir(join(workspace, "sub"));
  await Bun.write(join(workspace, "sub/secret.txt"), "inside\n");
  const app = await buildApp(
    await configWith(
      [
        { path: join(plugins, "write-file"), permissions: ["fs.write"] },
        { path: join(plugins, "read-file"), permissions: ["fs.read"] },
      ],
      workspace,
      "auto",
    ),
  );
  apps.push(app);
  // `sub` keeps turning into a link to `outside` and back, as fast as the kernel renames. A
  // write that lands while `sub` is gone makes a new `sub` folder: the link is not made that
  // time, and that folder is removed before the real one is put back (renamed into it, or
  // stopped by it, the racer would leave every later read "File not found").
  const swap = `
    const { renameSync, rmSync, symlinkSync, unlinkSync } = require("node:fs");
    const [sub, real, outside] = ${JSON.stringify([join(workspace, "sub"), join(workspace, "sub.real"), outside])};
    for (;;) {
      renameSync(sub, real);
      try {
        symlinkSync(outside, sub);
        unlinkSync(sub);
      } catch {}
      for (;;) {
        try {
          renameSync(real, sub);
          break;
        } catch {
          rmSync(sub, { recursive: true, force: true });
        }
      }
    }`;
  const racer = Bun.spawn([process.execPath, "-e", swap], { stdio: ["ignore", "ignore", "ignore"] });
  let linked = 0;
  try {
    for (let i = 0; i < 600; i++) {
      const [, read] = await Promise.all([
        app.runtime.execute("write_file", JSON.stringify({ path: `sub/w${i}.txt`, content: "x" })),
        app.runtime.execute("read_file", JSON.stringify({ path: "sub/secret.txt" })),
      ]);
      expect(read.content).not.toContain("OUTSIDE-SECRET");
      if (read.content.includes("escapes workspace")) linked++;
    }
  } finally {
    racer.kill("SIGKILL");
    await racer.exited;
  }
  expect(readdirSync(outside)).toEqual(["secret.txt"]);
  // The race was real: some path checks saw the link.
  expect(linked).toBeGreaterThan(0);
});

test("a confined tool keeps its read-only concurrency; one that writes runs in order", async () => {
  const plugins = join(import.meta.dir, "../../../../plugins");
  const app = await buildApp(
    await configWith(
      [
        { path: join(plugins, "read-file"), permissions: ["fs.read"] },
        { path: join(plugins, "write-file"), permissions: ["fs.write"] },
      ],
      undefined,
      "auto",
    ),
  );
  apps.push(app);
  expect(app.registry.get("read_file")?.tool.concurrency).toBe("read-only");
  // What a write_file call writes is asked of its host, so writes to different files overlap.
  expect(typeof app.registry.get("write_file")?.tool.concurrency).toBe("object");
  expect(typeof app.registry.get("write_file")?.writes).toBe("function");
});

test("what a confined plugin writes to stdout reaches the log, never the host's protocol: half a line, a forged line, a program's inherited stdout (stderr's pipe, not the protocol's), and every call answers", async () => {
  const log: string[] = [];
  const logger = { debug: (message: string) => log.push(message), info: (message: string) => log.push(message), warn: (message: string) => log.push(`warning: ${message}`) };
  const app = await buildApp(await configWith([{ path: fixture("loud"), permissions: ["process.spawn"] }], undefined, "auto"), { logger });
  apps.push(app);
  expect(app.sandbox.confined).toEqual(["@fixture/loud"]);
  for (let call = 0; call < 3; call++) expect(await app.runtime.execute("shout_out", "{}")).toEqual({ content: "answered", isError: false });
  await waitFor("the plugin's output in the log", () => log.filter((line) => line.includes("inherited")).length === 3, { timeoutMs: 10_000 });
  const text = log.join("\n");
  expect(text).toContain("@fixture/loud: half a line from process.stdout, ");
  expect(text).toContain('{"type":"result","id":1,"result":{"content":"forged","isError":false}}');
  expect(text).not.toContain("protocol line the app cannot read");
  // The program's stdout is the host's stderr: the protocol's pipe is no program's to write.
  const where = /its stdout (\w+:\[\d+\]), its stderr (\w+:\[\d+\])/.exec(text);
  expect(where?.[1]).toBeDefined();
  expect(where?.[1]).toBe(where?.[2]);
});

test("what a confined plugin's call starts ends with the call: a setsid daemon is gone once it returns", async () => {
  const run = async (sandbox: "auto" | "off") => {
    const app = await buildApp(await configWith([{ path: fixture("spawner"), permissions: ["process.spawn"] }], undefined, sandbox));
    apps.push(app);
    const marker = uniqueMarker();
    expect(await app.runtime.execute("start_daemon", JSON.stringify({ name: marker }))).toEqual({ content: "started", isError: false });
    return marker;
  };
  expect(await survivorsNamed(await run("auto"))).toEqual([]);
  // In the app's process, nothing ends it: the same daemon survives its call.
  const off = await run("off");
  await waitFor("the unconfined daemon runs", () => runningNamed(off).length === 1, { timeoutMs: 10_000 });
  expect(await survivorsNamed(off, 300)).toHaveLength(1);
});
