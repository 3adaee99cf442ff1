/**
 * A confined tree's limits and capabilities, tried with real confined processes: each is
 * shown in force, and shown missing in its twin (unconfined, or with room to spare).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { existsSync, } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { available } from "../../test/attempt.ts";
import { cgroupSupport } from "./cgroups.ts";
import { confineCommand } from "../launcher.ts";
import { DEFAULT_LIMITS, type Limits } from "./limits.ts";

let workspace = "";
beforeAll(async () => {
  workspace = await mkdtemp(join(tmpdir(), "plugboard-limits-"));
});
afterAll(() => rm(workspace, { recursive: true, force: true }));

const support = cgroupSupport();
const MiB = 1024 ** 2;

/** What `script` printed (stdout and stderr), run by bash confined with `limits` (or unconfined with "off"); the tree's cgroups removed after. */
async function bash(script: string, limits: Partial<Limits> | "off"): Promise<{ output: string; cgroups: readonly string[] }> {
  if (limits === "off") return { output: await run(["/bin/bash", "-c", script], process.env, undefined), cgroups: [] };
  const confined = confineCommand(available, {
    argv: ["/bin/bash", "-c", script],
    grants: ["fs.read", "fs.write", "process.spawn"],
    workspace,
    code: [],
    limits: { ...DEFAULT_LIMITS, ...limits },
  });
  try {
    return { output: await run([confined.command, ...confined.args], confined.env, confined.cwd), cgroups: confined.limits?.rules.cgroups ?? [] };
  } finally {
    await confined.limits?.remove();
  }
}

async function run(argv: readonly string[], env: Record<string, string | undefined>, cwd: string | undefined): Promise<string> {
  const child = Bun.spawn([...argv], { env, cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return stdout + stderr;
}

const CAPABILITIES = "grep ^Cap /proc/self/status";

describe("capabilities", () => {
  test("a confined process holds none: bounding, permitted, effective, inheritable and ambient sets empty", async () => {
    const { output } = await bash(CAPABILITIES, {});
    expect(output.split("\n").filter(Boolean).map((line) => line.split(/\s+/))).toEqual([
      ["CapInh:", "0000000000000000"],
      ["CapPrm:", "0000000000000000"],
      ["CapEff:", "0000000000000000"],
      ["CapBnd:", "0000000000000000"],
      ["CapAmb:", "0000000000000000"],
    ]);
  }, 30_000);

  // The twin: run by root without the sandbox, the same shell holds capabilities.
  test.skipIf(process.getuid?.() !== 0)("unconfined, root's shell holds them (the twin)", async () => {
    const { output } = await bash(CAPABILITIES, "off");
    for (const set of ["CapEff", "CapBnd"]) expect(new RegExp(`${set}:\\s+(\\w+)`).exec(output)?.[1]).not.toBe("0000000000000000");
  }, 30_000);
});

describe("tmp: each private memory file system has a size", () => {
  const fill = "head -c 16M /dev/zero > /tmp/f && echo written; head -c 16M /dev/zero > /dev/shm/f && echo written";

  test("16 MiB into an 8 MiB /tmp or /dev/shm fails: no space left", async () => {
    const { output } = await bash(fill, { tmp: 8 * MiB });
    expect(output.match(/No space left on device/g)?.length).toBe(2);
    expect(output).not.toContain("written");
  }, 30_000);

  test("with room (64 MiB) both are written (the twin)", async () => {
    expect((await bash(fill, { tmp: 64 * MiB })).output).toBe("written\nwritten\n");
  }, 30_000);
});

const pidsPlace = "folder" in support.pids ? support.pids : undefined;
describe.skipIf(pidsPlace === undefined)("the tree's cgroups (a writable pids cgroup here)", () => {
  test("the program runs in them from its start, cannot write their limits, and they are removed after", async () => {
    const script = "exec 2>&1; cat /proc/self/cgroup; for file in /sys/fs/cgroup/pids$(grep :pids: /proc/self/cgroup | cut -d: -f3)/pids.max; do echo 100000 > $file || echo refused; cat $file; done";
    const { output, cgroups } = await bash(script, { processes: 64 });
    const name = /:pids:\/(?:.*\/)?(plugboard-[0-9a-f-]+)\n/.exec(output)?.[1];
    expect(name).toStartWith(`plugboard-${process.pid}-`);
    expect(cgroups.some((procs) => procs.includes(`/${name}/`))).toBe(true);
    expect(output).toContain("Read-only file system");
    expect(output.trim().split("\n").slice(-2)).toEqual(["refused", "64"]);
    for (const procs of cgroups) expect(existsSync(procs)).toBe(false);
    if ("folder" in support.memory) expect(output).toMatch(new RegExp(`:memory:.*/${name}\\n`));
  }, 30_000);

  test("every thread of the program is in them: the confining step joins on its own thread and execve's the program from it", async () => {
    // Bun, exec'd by the confined shell in its place, starts its threads after the join: each says which pids cgroup it is in.
    const threads = `exec bun -e 'const { readdirSync, readFileSync } = require("node:fs"); await Bun.sleep(50);
      for (const task of readdirSync("/proc/self/task")) console.log(readFileSync("/proc/self/task/" + task + "/cgroup", "utf8").split("\\n").find((line) => line.includes(":pids:")))'`;
    const lines = (await bash(threads, {})).output.trim().split("\n");
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.filter((line) => !/\/plugboard-[0-9a-f-]+$/.test(line))).toEqual([]);
    expect(new Set(lines).size).toBe(1);
  }, 30_000);

  test("a bounded attack just over the process limit is refused and counted; with the default limit it is not (the twin)", async () => {
    // A program that starts 40 sleeps and counts the refused (bash would retry a refused fork for seconds).
    const attack = `bun -e 'let started = 0, failed = 0; const children = [];
      for (let i = 0; i < 40; i++) { try { children.push(Bun.spawn(["sleep", "5"])); started++ } catch { failed++ } }
      for (const child of children) child.kill("SIGKILL");
      console.log("started", started, "failed", failed)'`;
    const tight = await bash(attack, { processes: 24 });
    const [, started, failed] = /started (\d+) failed (\d+)/.exec(tight.output) ?? [];
    expect(Number(failed)).toBeGreaterThan(0);
    expect(Number(started) + Number(failed)).toBe(40);
    expect((await bash(attack, {})).output).toBe("started 40 failed 0\n");
  }, 60_000);
});
