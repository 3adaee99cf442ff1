import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Workspace } from "@plugboard/core";
import { pluginRuntime } from "@plugboard/testing";
import plugin, { type Options } from "./index.ts";

let dir: string;
let workspace: Workspace;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-bash-"));
  workspace = await Workspace.open(dir);
});

afterAll(() => rm(dir, { recursive: true, force: true }));

/** The bash plugin's tool, enabled with `options`, in the test's workspace. */
const bashWith = (options: Partial<Options> = {}) => pluginRuntime(plugin, { workspace, options });

const bash = async (command: string, extra: Record<string, unknown> = {}, signal?: AbortSignal) =>
  (await bashWith()).call("bash", { command, ...extra }, { signal });

/** Whether `pid` is still running; a zombie has ended and only waits to be reaped. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return true; // no /proc here: trust kill(0)
  }
  const state = stat.slice(stat.lastIndexOf(")") + 2).charAt(0);
  return state !== "Z" && state !== "X";
}

/** The pids still running after up to `ms` (a killed process needs a moment to be gone). */
async function survivors(pids: readonly number[], ms = 2000): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = pids.filter(isAlive);
  while (alive.length > 0 && Date.now() < deadline) {
    await Bun.sleep(20);
    alive = alive.filter(isAlive);
  }
  return alive;
}

async function pidsIn(file: string): Promise<number[]> {
  const text = await readFile(join(dir, file), "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).map(Number);
}

/** Two sleeps in a subshell; their pids and the subshell's go to `file`. */
const sleepers = (file: string) =>
  `echo started; ( sleep 300 & echo $! >> ${file}; sleep 300 & echo $! >> ${file}; echo $BASHPID >> ${file}; wait )`;

describe("bash: results", () => {
  test("returns stdout and the exit code", async () => {
    expect(await bash("echo hello")).toEqual({ content: "hello\nexit code: 0", isError: false });
  });

  test("a non-zero exit is a normal result that reports the code", async () => {
    expect(await bash("echo out; exit 3")).toEqual({ content: "out\nexit code: 3", isError: false });
  });

  test("puts stderr after stdout under a marker line", async () => {
    expect((await bash("echo out; echo err >&2; echo more")).content).toBe("out\nmore\n[stderr]\nerr\nexit code: 0");
    expect((await bash("echo only-err >&2; exit 1")).content).toBe("[stderr]\nonly-err\nexit code: 1");
  });

  test("says (no output) when both streams are empty", async () => {
    expect((await bash("true")).content).toBe("(no output)\nexit code: 0");
  });

  test("reports the signal that ended the shell", async () => {
    expect((await bash("echo before; kill -TERM $$")).content).toBe("before\nsignal: SIGTERM");
  });

  test("runs in the workspace root with stdin closed", async () => {
    await writeFile(join(dir, "marker.txt"), "in the workspace\n");
    expect((await bash("pwd; cat marker.txt")).content).toBe(`${workspace.root}\nin the workspace\nexit code: 0`);
    expect((await bash("cat; echo stdin-was-empty")).content).toBe("stdin-was-empty\nexit code: 0");
  });

  test("withholds the model credentials from the command's environment", async () => {
    process.env.MODEL_API_KEY = "sk-model";
    process.env.OPENAI_API_KEY = "sk-openai";
    process.env.PLUGBOARD_KEEP_ME = "visible";
    try {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
      const result = await bash('echo "[${MODEL_API_KEY-unset}] [${OPENAI_API_KEY-unset}] [$PLUGBOARD_KEEP_ME]"');
      expect(result.content).toBe("[unset] [unset] [visible]\nexit code: 0");
    } finally {
      delete process.env.MODEL_API_KEY;
      delete process.env.OPENAI_API_KEY;
      delete process.env.PLUGBOARD_KEEP_ME;
    }
  });

  test("refuses timeout_ms below 1 or above maxTimeoutMs", async () => {
    const low = await bash("true", { timeout_ms: 0 });
    expect(low.isError).toBe(true);
    expect(low.content).toStartWith("Error: Invalid arguments for bash: timeout_ms:");
    const high = await (await bashWith({ timeoutMs: 1000, maxTimeoutMs: 5000 })).call("bash", { command: "true", timeout_ms: 5001 });
    expect(high.content).toStartWith("Error: Invalid arguments for bash: timeout_ms:");
  });
});

test("bash: a workspace folder that vanished is a clear error", async () => {
  const gone = await mkdtemp(join(tmpdir(), "plugboard-bash-gone-"));
  const goneWorkspace = await Workspace.open(gone);
  await rm(gone, { recursive: true });
  const { call } = await pluginRuntime(plugin, { workspace: goneWorkspace });
  expect(await call("bash", { command: "echo hi" })).toEqual({
    content: `Error: Could not start the command: the workspace folder ${goneWorkspace.root} does not exist`,
    isError: true,
  });
});

describe("bash: output cap", () => {
  const digits = Array.from({ length: 400 }, (_, i) => String(i + 1)).join("");
  const printDigits = "seq 1 400 | tr -d '\\n'";

  test("keeps the head and the tail and counts the characters cut", async () => {
    const result = await (await bashWith({ maxOutputChars: 100 })).call("bash", { command: printDigits });
    expect(result.content).toBe(
      `${digits.slice(0, 50)}\n... (992 characters cut) ...\n${digits.slice(-50)}\nexit code: 0`,
    );
  });

  test("stdout and stderr share the cap, each keeping its own head and tail", async () => {
    const command = `${printDigits}; ${printDigits} >&2`;
    const result = await (await bashWith({ maxOutputChars: 100 })).call("bash", { command });
    const half = `${digits.slice(0, 25)}\n... (1042 characters cut) ...\n${digits.slice(-25)}`;
    expect(result.content).toBe(`${half}\n[stderr]\n${half}\nexit code: 0`);
  });
});

describe("bash: timeout and cancellation", () => {
  test("a timeout kills the whole process group and returns the output so far", async () => {
    const result = await bash(sleepers("timeout.pids"), { timeout_ms: 1000 });
    expect(result).toEqual({ content: "Error: Command timed out after 1000 ms\nstarted", isError: true });
    const pids = await pidsIn("timeout.pids");
    expect(pids).toHaveLength(3);
    expect(await survivors(pids)).toEqual([]);
  });

  test("cancelling kills the whole process group", async () => {
    const controller = new AbortController();
    const running = bash(sleepers("abort.pids"), {}, controller.signal);
    while ((await pidsIn("abort.pids")).length < 3) await Bun.sleep(10);
    controller.abort();
    expect(await running).toEqual({ content: "Error: Command cancelled", isError: true });
    expect(await survivors(await pidsIn("abort.pids"))).toEqual([]);
  });

  test("an already cancelled call runs nothing", async () => {
    const result = await bash("touch ran.txt", {}, AbortSignal.abort());
    expect(result.content).toBe("Error: Command cancelled");
    expect(await Bun.file(join(dir, "ran.txt")).exists()).toBe(false);
  });

  test.skipIf(Bun.which("setsid") === null)("a process that leaves the group cannot hold the call open", async () => {
    // The shell exits only once the sleeper runs in a session of its own, outside the group.
    const command = "setsid sh -c 'echo $$ > escaped.pids; exec sleep 300' & while [ ! -s escaped.pids ]; do sleep 0.01; done; echo done";
    const result = await bash(command);
    const pids = await pidsIn("escaped.pids");
    for (const pid of pids) process.kill(pid, "SIGKILL");
    expect(result.content).toBe("done\nexit code: 0");
    expect(pids).toHaveLength(1);
  });

  test("background jobs do not outlive the command", async () => {
    const result = await bash("sleep 300 & echo $! > background.pids; echo launched");
    expect(result.content).toBe("launched\nexit code: 0");
    const pids = await pidsIn("background.pids");
    expect(pids).toHaveLength(1);
    expect(await survivors(pids)).toEqual([]);
  });
});
