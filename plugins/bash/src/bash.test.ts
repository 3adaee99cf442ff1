import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Workspace } from "@plugboard/core";
import { pidNamespacePrefix } from "@plugboard/core/process";
import { awaitEscapeesCommand, ESCAPEE_COUNT, escapeesCommand, runningNamed, survivorsNamed, uniqueMarker, waitFor } from "@plugboard/test-helpers";
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

  test("a shell that signals itself ends by that signal, and the last line says which", async () => {
    expect(await bash("echo before; kill -TERM $$; echo after")).toEqual({ content: "before\nTerminated by SIGTERM", isError: false });
    expect(await bash("echo before; kill -KILL $$; echo after")).toEqual({ content: "before\nTerminated by SIGKILL", isError: false });
  });

  test("exit 143 is an exit, not SIGTERM (the init's report tells them apart)", async () => {
    expect((await bash("echo out; exit 143")).content).toBe("out\nexit code: 143");
  });

  test("runs in the workspace root with stdin closed", async () => {
    await writeFile(join(dir, "marker.txt"), "in the workspace\n");
    expect((await bash("pwd; cat marker.txt")).content).toBe(`${workspace.root}\nin the workspace\nexit code: 0`);
    expect((await bash("cat; echo stdin-was-empty")).content).toBe("stdin-was-empty\nexit code: 0");
  });

  test("withholds Plugboard's credentials from the command's environment", async () => {
    const withheld = { MODEL_API_KEY: "sk-model", OPENAI_API_KEY: "sk-openai", PLUGBOARD_WEB_TOKEN: "web", PLUGBOARD_MCP_TOKEN: "mcp" };
    Object.assign(process.env, withheld, { PLUGBOARD_KEEP_ME: "visible" });
    try {
      const names = Object.keys(withheld);
      const result = await bash(`${names.map((name) => `echo "${name}=\${${name}-unset}"`).join("; ")}; echo "[$PLUGBOARD_KEEP_ME]"`);
      expect(result.content).toBe(`${names.map((name) => `${name}=unset`).join("\n")}\n[visible]\nexit code: 0`);
    } finally {
      for (const name of [...Object.keys(withheld), "PLUGBOARD_KEEP_ME"]) delete process.env[name];
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
  test("a timeout kills every process the command started and returns the output so far", async () => {
    const marker = uniqueMarker();
    const result = await bash(`${escapeesCommand(marker)}echo started; sleep 300`, { timeout_ms: 1000 });
    expect(result).toEqual({ content: "Error: Command timed out after 1000 ms\nstarted", isError: true });
    expect(await survivorsNamed(marker)).toEqual([]);
  });

  test("cancelling kills every process the command started", async () => {
    const marker = uniqueMarker();
    const controller = new AbortController();
    const running = bash(`${escapeesCommand(marker)}echo started; sleep 300`, {}, controller.signal);
    await waitFor("the command's background processes started", () => runningNamed(marker).length >= ESCAPEE_COUNT);
    controller.abort();
    expect(await running).toEqual({ content: "Error: Command cancelled", isError: true });
    expect(await survivorsNamed(marker)).toEqual([]);
  });

  test("an already cancelled call runs nothing", async () => {
    const result = await bash("touch ran.txt", {}, AbortSignal.abort());
    expect(result.content).toBe("Error: Command cancelled");
    expect(await Bun.file(join(dir, "ran.txt")).exists()).toBe(false);
  });

  test("background jobs, setsid, double forks and nohup do not outlive the command", async () => {
    const marker = uniqueMarker();
    const result = await bash(`${escapeesCommand(marker)}${awaitEscapeesCommand(marker)}echo launched`);
    expect(result.content).toBe("launched\nexit code: 0");
    expect(await survivorsNamed(marker)).toEqual([]);
  });
});

test.skipIf(pidNamespacePrefix().length === 0)("bash: orphans are reaped while the command runs", async () => {
  // The orphans run as MARK (a link to sleep) so that /proc names them. awk's system() waits
  // for its own child only, unlike a shell: with the shell as the namespace's first process,
  // `exec awk` would leave all 50 zombies.
  const mark = `orphan${process.pid % 100000}`;
  const orphans = `ln -s "$(command -v sleep)" ${mark}; for i in $(seq 50); do (sh -c "touch ${mark}.$i; exec ./${mark} 0.05" &); done`;
  const count = `sleep 1; echo $(ls ${mark}.* | wc -l) orphans, $(grep -lF \\"(${mark}) Z\\" /proc/[0-9]*/stat 2>/dev/null | wc -l) zombies`;
  const result = await bash(`${orphans}; exec awk 'BEGIN { system("${count}") }'`);
  expect(result.content).toBe("50 orphans, 0 zombies\nexit code: 0");
});
