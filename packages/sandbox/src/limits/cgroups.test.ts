/**
 * The cgroups of a confined tree, made for real below this process's own: on a machine where
 * none is writable (a desktop user without systemd's delegation of pids) the tests that need
 * one are skipped, and `cgroupSupport` says why.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmdirSync, utimesSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { cgroupSupport, FOREIGN_GRACE_MS, makeTreeCgroups, sweep } from "./cgroups.ts";

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

/** This process's PID namespace, as our cgroups' names hold it. */
const namespace = /\d+/.exec(readlinkSync("/proc/self/ns/pid"))?.[0] ?? "0";

/**
 * An app that is pid 1 of a PID namespace of its own (and of a user namespace, mapping its
 * user to root there, so that no privilege is needed): it makes one tree's pids cgroup and
 * ends without removing it, as an app killed there would. The cgroup's folder.
 */
async function leftInPidNamespace(): Promise<string> {
  const code = `const { cgroupSupport, makeTreeCgroups } = await import(${JSON.stringify(join(import.meta.dir, "cgroups.ts"))});
    console.log(JSON.stringify({ pid: process.pid, joins: makeTreeCgroups(cgroupSupport(), { pids: 64 }).joins }));`;
  const child = Bun.spawn(["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", process.execPath, "-e", code], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  const tree = JSON.parse(out || "null") as { pid: number; joins: string[] } | null;
  expect({ tree, err }).toMatchObject({ tree: { pid: 1 }, err: "" });
  const folder = dirname(tree?.joins[0] ?? "");
  made.push(folder);
  return folder;
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

  test("a sweep removes the cgroups an app that is gone left, and keeps a live app's (names of this version and of earlier ones)", async () => {
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const alive = Bun.spawn(["sleep", "30"]);
    const leftovers = [`plugboard-${gone.pid}-${namespace}-0a1b2c3d4e5f`, `plugboard-${gone.pid}-1`].map((name) => join(folder, name));
    const kept = [`plugboard-${alive.pid}-${namespace}-0a1b2c3d4e5f`, `plugboard-${alive.pid}-1`].map((name) => join(folder, name));
    for (const path of [...leftovers, ...kept]) {
      mkdirSync(path);
      made.push(path);
    }
    sweep(folder);
    expect(leftovers.filter((path) => existsSync(path))).toEqual([]);
    expect(kept.filter((path) => existsSync(path))).toEqual(kept);
    alive.kill("SIGKILL");
    await alive.exited;
    sweep(folder);
    expect(kept.filter((path) => existsSync(path))).toEqual([]);
  });

  test("two apps that are each pid 1 of their own PID namespace make their cgroups side by side: the names differ", async () => {
    const first = await leftInPidNamespace();
    const second = await leftInPidNamespace();
    expect(basename(first)).toStartWith(`plugboard-1-`);
    expect(basename(second)).toStartWith(`plugboard-1-`);
    expect(second).not.toBe(first);
  }, 30_000);

  test("a sweep removes an empty cgroup an app in another PID namespace left once it is older than the grace; a fresh one, and an old one holding a task, stay", async () => {
    const [stale, fresh, busy] = [await leftInPidNamespace(), await leftInPidNamespace(), await leftInPidNamespace()];
    // Its pid, 1 in its namespace, is alive here (this namespace's init): the pid says nothing of its app.
    const task = Bun.spawn(["sleep", "30"]);
    try {
      // The task joins before the folders are made old: any app starting meanwhile sweeps too,
      // and would remove an old `busy` that is still empty.
      writeFileSync(join(busy, "cgroup.procs"), String(task.pid));
      const old = (Date.now() - FOREIGN_GRACE_MS) / 1000 - 60;
      for (const folder of [stale, busy]) utimesSync(folder, old, old);
      sweep(folder);
      expect({ stale: existsSync(stale), fresh: existsSync(fresh), busy: existsSync(busy) }).toEqual({ stale: false, fresh: true, busy: true });
    } finally {
      task.kill("SIGKILL");
      await task.exited;
    }
  }, 30_000);
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
