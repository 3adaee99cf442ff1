/**
 * The cgroups of a confined tree, made for real below this process's own: on a machine where
 * none is writable (a desktop user without systemd's delegation of pids) the tests that need
 * one are skipped, and `cgroupSupport` says why.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from "node:fs";
import { basename, join } from "node:path";
import { cgroupSupport, makeTreeCgroups, sweep } from "./cgroups.ts";

const support = cgroupSupport();
const pids = "folder" in support.pids ? support.pids : undefined;
const made: string[] = [];
afterAll(() => {
  for (const folder of made) if (existsSync(folder)) rmdirSync(folder);
});

/** Our cgroups left below the app's pids cgroup. */
const ours = (folder: string) => readdirSync(folder).filter((name) => name.startsWith(`plugboard-${process.pid}-`));

/**
 * A bounded attack: a Bun process that joins the cgroups of `joins` (as the confining step
 * does), then starts 20 `sleep`s, counts those the kernel refused, and kills what it started.
 */
async function twentySleeps(joins: readonly string[]): Promise<{ started: number; failed: number }> {
  const code = `
    const { writeFileSync } = require("node:fs");
    for (const file of ${JSON.stringify(joins)}) writeFileSync(file, "0");
    const started = [];
    let failed = 0;
    for (let i = 0; i < 20; i++) {
      try { started.push(Bun.spawn(["sleep", "5"], { stdio: ["ignore", "ignore", "ignore"] })); } catch { failed++; }
    }
    for (const child of started) child.kill("SIGKILL");
    await Promise.all(started.map((child) => child.exited));
    console.log(JSON.stringify({ started: started.length, failed }));`;
  const child = Bun.spawn([process.execPath, "-e", code], { stdout: "pipe", stderr: "inherit" });
  const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  return JSON.parse(out) as { started: number; failed: number };
}

describe.skipIf(pids === undefined)("a tree's cgroups (a writable pids cgroup here)", () => {
  const folder = pids?.folder ?? "";

  test("made below the app's own, bounded: a bounded attack over the limit is refused and counted; the twin with room starts all; both removed", async () => {
    const tight = makeTreeCgroups(support, { pids: 16 });
    const roomy = makeTreeCgroups(support, { pids: 512 });
    expect(ours(folder).length).toBe(2);
    const [tightJoin = ""] = tight.joins;
    expect(tightJoin.startsWith(`${folder}/plugboard-${process.pid}-`)).toBe(true);
    // On v1 the thread joins alone (`tasks`): the fast path, which the confining step's execve makes the whole process.
    expect(basename(tightJoin)).toBe(pids?.version === 1 ? "tasks" : "cgroup.procs");
    expect(readFileSync(join(tightJoin, "../pids.max"), "utf8").trim()).toBe("16");

    const refused = await twentySleeps(tight.joins);
    expect(refused.failed).toBeGreaterThan(0);
    expect(refused.started + refused.failed).toBe(20);
    expect(tight.refusals().pids).toBeGreaterThan(0);
    // The twin: the same attack with room for it.
    expect(await twentySleeps(roomy.joins)).toEqual({ started: 20, failed: 0 });
    expect(roomy.refusals().pids).toBe(0);

    await Promise.all([tight.remove(), roomy.remove()]);
    expect(ours(folder)).toEqual([]);
  }, 30_000);

  test("a sweep removes the cgroups an app that is gone left, and keeps a live app's", async () => {
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const alive = Bun.spawn(["sleep", "30"]);
    const leftover = join(folder, `plugboard-${gone.pid}-1`);
    const kept = join(folder, `plugboard-${alive.pid}-1`);
    for (const path of [leftover, kept]) {
      mkdirSync(path);
      made.push(path);
    }
    sweep(folder);
    expect(existsSync(leftover)).toBe(false);
    expect(existsSync(kept)).toBe(true);
    alive.kill("SIGKILL");
    await alive.exited;
    sweep(folder);
    expect(existsSync(kept)).toBe(false);
  });
});

test("each controller's place is the app's own cgroup as /proc/self/cgroup names it, or says what is lacking", () => {
  const lines = readFileSync("/proc/self/cgroup", "utf8").split("\n");
  for (const controller of ["pids", "memory"] as const) {
    const place = support[controller];
    if (!("folder" in place)) {
      expect(place.lacking).toStartWith(`${controller}: `);
      continue;
    }
    const line = place.version === 2 ? lines.find((entry) => entry.startsWith("0::")) : lines.find((entry) => entry.split(":")[1]?.split(",").includes(controller));
    const path = line?.split(":").slice(2).join(":") ?? "(none)";
    expect(place.folder.endsWith(path === "/" ? "" : path)).toBe(true);
    expect(existsSync(join(place.folder, "cgroup.procs"))).toBe(true);
  }
});
