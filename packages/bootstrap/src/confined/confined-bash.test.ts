/**
 * The bash plugin in its host: every process a command starts ends with the call (on
 * return, timeout and cancel, checked in /proc), the app's environment is out of reach, and
 * the network is closed unless granted. Each defence is shown failing with `"sandbox": "off"`
 * where the attack would succeed there.
 */
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { configWith, removeTempDirs, tempDir } from "../../test/temp-app.ts";
import { type App, buildApp } from "../index.ts";

// Real host processes: a busy machine needs more than bun's default 5 s per test.
setDefaultTimeout(30_000);
import type { Permission } from "@plugboard/core";
import { awaitEscapeesCommand, ESCAPEE_COUNT, escapeesCommand, runningNamed, survivorsNamed, uniqueMarker, waitFor } from "@plugboard/test-helpers";

const BASH = join(import.meta.dir, "../../../../plugins/bash");
const SECRET = "sk-bash-confined";
const apps: App[] = [];
let holder: Bun.Subprocess | undefined;

beforeAll(() => {
  // /proc/PID/environ holds what a process started with: an app started with the key.
  holder = Bun.spawn(["sleep", "120"], { env: { ...process.env, MODEL_API_KEY: SECRET } });
});
afterAll(() => holder?.kill("SIGKILL"));
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await removeTempDirs();
});

async function bashApp(sandbox: "auto" | "off", extra: Permission[] = []): Promise<App> {
  const permissions = ["process.spawn", "fs.read", "fs.write", ...extra];
  const app = await buildApp(await configWith([{ path: BASH, permissions }], undefined, sandbox));
  apps.push(app);
  return app;
}

const bash = (app: App, command: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
  app.runtime.execute("bash", JSON.stringify({ command, ...extra }), signal ? { signal } : {});

describe("confined bash", () => {
  test("runs confined, in the workspace", async () => {
    const app = await bashApp("auto");
    expect(app.sandbox.confined).toEqual(["@plugboard/plugin-bash"]);
    expect(await bash(app, "echo hi > a.txt; cat a.txt; pwd")).toEqual({ content: `hi\n${app.workspace.root}\nexit code: 0`, isError: false });
  });

  test("no descendant survives a call that returns, times out or is cancelled", async () => {
    const app = await bashApp("auto");
    const returned = uniqueMarker();
    expect((await bash(app, `${escapeesCommand(returned)}${awaitEscapeesCommand(returned)}echo launched`)).content).toBe("launched\nexit code: 0");
    expect(await survivorsNamed(returned)).toEqual([]);

    const timedOut = uniqueMarker();
    const result = await bash(app, `${escapeesCommand(timedOut)}${awaitEscapeesCommand(timedOut)}sleep 300`, { timeout_ms: 1500 });
    expect(result.content).toStartWith("Error: Command timed out after 1500 ms");
    expect(await survivorsNamed(timedOut)).toEqual([]);

    const cancelled = uniqueMarker();
    const controller = new AbortController();
    const running = bash(app, `${escapeesCommand(cancelled)}${awaitEscapeesCommand(cancelled)}sleep 300`, {}, controller.signal);
    await waitFor("the command's background processes run", () => runningNamed(cancelled).length >= ESCAPEE_COUNT, { timeoutMs: 10_000 });
    controller.abort();
    expect((await running).isError).toBe(true);
    // The cancel crossed to the host: the command's processes are killed there.
    expect(await survivorsNamed(cancelled)).toEqual([]);
  });

  test("cannot read the app's environment from /proc", async () => {
    const pid = String(holder?.pid);
    const command = `cat /proc/${pid}/environ | tr '\\0' '\\n' | grep MODEL_API_KEY; cat /proc/$PPID/environ | tr '\\0' '\\n' | grep -c MODEL_API_KEY`;
    const confined = await bash(await bashApp("auto"), command);
    expect(confined.content).not.toContain(SECRET);
    expect(confined.content).toContain(`/proc/${pid}/environ: No such file or directory`);
    expect((await bash(await bashApp("off"), command)).content).toContain(`MODEL_API_KEY=${SECRET}`);
  });

  test("reaches no network without the network grant", async () => {
    using server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const command = `exec 3<>/dev/tcp/127.0.0.1/${server.port} && echo connected`;
    const confined = await bash(await bashApp("auto"), command);
    expect(confined.content).not.toContain("connected");
    expect((await bash(await bashApp("auto", ["network"]), command)).content).toBe("connected\nexit code: 0");
    expect((await bash(await bashApp("off"), command)).content).toBe("connected\nexit code: 0");
  });

  test("cannot write outside the workspace", async () => {
    const outside = join(await tempDir(), "outside.txt");
    const confined = await bash(await bashApp("auto"), `echo x > ${outside}`);
    // Outside the workspace nothing of the disk is in the view: the folder is not there.
    expect(confined.content).toContain(`${outside}: No such file or directory`);
    expect(await Bun.file(outside).exists()).toBe(false);
    expect((await bash(await bashApp("off"), `echo x > ${outside}`)).content).toBe("(no output)\nexit code: 0");
  });
});
