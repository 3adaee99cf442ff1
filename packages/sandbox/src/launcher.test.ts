/**
 * The kernel layer, attacked with real processes: each attack runs confined and is
 * refused, and runs unconfined (the same script, plain `bun`) and succeeds, so the test
 * fails if the confinement does nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { closeSync, existsSync, writeSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Permission } from "@plugboard/core";
import { runningNamed, survivorsNamed, waitFor } from "@plugboard/test-helpers";
import { ATTEMPT, attempt as attemptIn, available, PACKAGE } from "../test/attempt.ts";
import { type AheadConfinedCommand, CONFINE_PROGRAM, confineAhead, confineCommand, type LaunchOptions, RULES_FD } from "./launcher.ts";
import { detectMechanism } from "./mechanism.ts";

let dir = "";
let workspace = "";
const SECRET = "sk-test-secret";
/** What a refused write or read reads as: not permitted, read-only, or not there at all (outside the view). */
const REFUSED = /^refused: (EACCES|EPERM|EROFS|ENOENT)/;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-sandbox-"));
  workspace = join(dir, "workspace");
  await mkdir(workspace);
  process.env.MODEL_API_KEY = SECRET;
});
afterAll(async () => {
  delete process.env.MODEL_API_KEY;
  await rm(dir, { recursive: true, force: true });
});

/** Runs the attempt confined with `grants`, or unconfined with `grants === "off"`. */
const attempt = (grants: readonly Permission[] | "off", ...args: string[]) => attemptIn(workspace, grants, args);

describe("fs.read only", () => {
  test("cannot write outside the workspace (sync and async writes)", async () => {
    const outside = join(dir, "outside.txt");
    expect(await attempt(["fs.read"], "write", outside)).toMatch(REFUSED);
    expect(await attempt(["fs.read"], "write-async", outside)).toMatch(REFUSED);
    // With fs.write a path under the private /tmp may be written, but only there: the real file never appears.
    await attempt(["fs.read", "fs.write"], "write", outside);
    expect(existsSync(outside)).toBe(false);
    expect(await attempt("off", "write", outside)).toBe(`ok: wrote ${outside}`);
    expect(existsSync(outside)).toBe(true);
  });

  test("cannot write inside the workspace either, but can read it", async () => {
    const inside = join(workspace, "inside.txt");
    expect(await attempt(["fs.read"], "write", inside)).toMatch(REFUSED);
    expect(await attempt(["fs.read", "fs.write"], "write", inside)).toBe(`ok: wrote ${inside}`);
    expect(await attempt(["fs.read"], "read", inside)).toBe("ok: written by a confined process");
    expect(await attempt([], "read", inside)).toStartWith("refused: ENOENT");
  });

  test("cannot read files outside the workspace", async () => {
    await Bun.write(join(dir, "private.txt"), "private\n");
    expect(await attempt(["fs.read"], "read", join(dir, "private.txt"))).toStartWith("refused: ENOENT");
    expect(await attempt("off", "read", join(dir, "private.txt"))).toBe("ok: private");
  });

  test("process.spawn lets programs run, not read what fs.read does not grant", async () => {
    await Bun.write(join(dir, "private.txt"), "private\n");
    const grants: Permission[] = ["fs.read", "process.spawn"];
    expect(await attempt(grants, "read", join(dir, "private.txt"))).toStartWith("refused: ENOENT");
    expect(await attempt(grants, "spawn-read", join(dir, "private.txt"))).toStartWith("refused: exit 1: head:");
    expect(await attempt("off", "spawn-read", join(dir, "private.txt"))).toBe("ok: private");
  });

  test("cannot spawn a program", async () => {
    expect(await attempt(["fs.read"], "spawn")).toStartWith("refused: EACCES");
    expect(await attempt(["fs.read", "process.spawn"], "spawn")).toBe("ok: spawned");
    expect(await attempt("off", "spawn")).toBe("ok: spawned");
  });

  test("cannot connect to a listening 127.0.0.1 port", async () => {
    using server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = String(server.port);
    expect(await attempt(["fs.read"], "connect", port)).toStartWith("refused:");
    expect(await attempt(["fs.read", "network"], "connect", port)).toBe(`ok: connected to ${port}`);
    expect(await attempt("off", "connect", port)).toBe(`ok: connected to ${port}`);
  });

  test("cannot read MODEL_API_KEY from its environment or from an outside process's /proc/PID/environ", async () => {
    // /proc/PID/environ shows the environment a process started with: an app holding the key.
    await using app = holdingTheKey();
    const pid = String(app.pid);
    expect(await attempt(["fs.read"], "env")).toBe("ok: MODEL_API_KEY=(unset)");
    expect(await attempt(["fs.read"], "environ", pid)).toStartWith("refused: ENOENT");
    expect(await attempt("off", "env")).toBe(`ok: MODEL_API_KEY=${SECRET}`);
    expect(await attempt("off", "environ", pid)).toBe(`ok: MODEL_API_KEY=${SECRET}`);
  });
});

function holdingTheKey() {
  const child = Bun.spawn(["sleep", "60"], { env: { ...process.env, MODEL_API_KEY: SECRET } });
  return { pid: child.pid, [Symbol.asyncDispose]: async () => {
    child.kill("SIGKILL");
    await child.exited;
  } };
}

test("whatever a confined process starts ends with it, daemons included", async () => {
  const marker = `plugboard-sandbox-daemon-${process.pid}`;
  const confined = confineCommand(available, {
    argv: [process.execPath, ATTEMPT, "daemon", marker],
    grants: ["process.spawn"],
    workspace,
    code: [PACKAGE],
  });
  const host = Bun.spawn([confined.command, ...confined.args], { env: confined.env, stdout: "pipe" });
  const reader = host.stdout.getReader();
  expect(new TextDecoder().decode((await reader.read()).value)).toBe("ok: started\n");
  await waitFor("the daemon ran", () => runningNamed(marker).length === 1);
  host.kill("SIGKILL");
  await host.exited;
  // None outlives the confined process.
  expect(await survivorsNamed(marker, 5000)).toEqual([]);
});

test("no namespace can be made in a confined process, which its environment says (PLUGBOARD_CONFINED=1): core's probe for one is skipped there", async () => {
  // The probe's two forms, run anyway: both fail, so skipping them changes nothing.
  const script = `const run = (flags) => Bun.spawnSync(["unshare", ...flags, "true"], { stderr: "ignore" }).exitCode; console.log(process.env.PLUGBOARD_CONFINED, run(["--pid", "--fork", "--kill-child"]), run(["--user", "--map-current-user", "--pid", "--fork", "--kill-child"]));`;
  const confined = confineCommand(available, { argv: [process.execPath, "-e", script], grants: ["process.spawn"], workspace, code: [PACKAGE] });
  const run = Bun.spawn([confined.command, ...confined.args], { env: confined.env, cwd: confined.cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  expect(stderr).toBe("");
  expect(stdout).toMatch(/^1 [1-9]\d* [1-9]\d*\n$/);
});

describe("a Bun script run in the confining step's own process (inPlace)", () => {
  const SCRIPT = join(PACKAGE, "test/fixtures/threads.ts");
  // The step as the CLI ships it, a bundle (one ES module, hosts' program.ts): run from its sources, Bun reads them on its thread pool before the rules come, and the step always execve's.
  let confineProgram = "";
  beforeAll(async () => {
    const built = await Bun.build({ entrypoints: [CONFINE_PROGRAM], target: "bun", format: "esm", minify: true });
    const code = built.outputs.find((output) => output.kind === "entry-point");
    if (!built.success || code === undefined) throw new Error(`the confining program did not build: ${built.logs.join("\n")}`);
    confineProgram = join(dir, "confine-program.js");
    await Bun.write(confineProgram, code);
  });
  interface Report {
    readonly args: string[];
    readonly inPlace: boolean;
    readonly threads: { readonly name: string; readonly confined: boolean }[];
    readonly variables: string[];
    readonly write: string;
  }
  const run = async (extra: Record<string, string> = {}, ahead = false): Promise<Report> => {
    const outside = join(tmpdir(), `plugboard-in-place-${process.pid}`);
    const options = { argv: [process.execPath, SCRIPT, outside], grants: ["fs.read"] as Permission[], workspace, code: [PACKAGE], confineProgram, inPlace: true };
    let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
    if (ahead) {
      const step = confineAhead(available, options);
      child = Bun.spawn([step.command, ...step.args], { env: { ...step.env, ...extra }, cwd: step.cwd, stdio: ["ignore", "pipe", "pipe", "ignore", step.rulesFd] as unknown as ["ignore", "pipe", "pipe"] });
      step.spawned();
      step.send(options, []);
    } else {
      const confined = confineCommand(available, options);
      child = Bun.spawn([confined.command, ...confined.args], { env: { ...confined.env, ...extra }, cwd: confined.cwd, stdout: "pipe", stderr: "pipe" });
    }
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    expect({ stderr, code }).toEqual({ stderr: "", code: 0 });
    expect(existsSync(outside)).toBe(false);
    return JSON.parse(stdout) as Report;
  };

  test.each([
    ["its rules on the command line", false],
    ["started ahead of its rules", true],
  ])("runs there (%s), every thread it starts confined, with its own arguments and environment", async (_, ahead) => {
    const report = await run({}, ahead);
    expect(report.inPlace).toBe(true);
    expect(report.args).toEqual([join(tmpdir(), `plugboard-in-place-${process.pid}`)]);
    // The thread pool's and the collector's threads, started after the confinement, inherit it.
    expect(report.threads.length).toBeGreaterThan(1);
    expect(report.threads.filter(({ confined }) => !confined)).toEqual([]);
    expect(report.variables).toEqual([]);
    expect(report.write).toMatch(REFUSED);
  });

  test("a script that exports `finished` is awaited: the step's entry stays unfinished, and Bun's collection after an entry does not come", async () => {
    const script = join(PACKAGE, "test/fixtures/finishes.ts");
    const collections = async (extra: Record<string, string>) => {
      const options = { argv: [process.execPath, script], grants: ["fs.read"] as Permission[], workspace, code: [PACKAGE], confineProgram, inPlace: true };
      const confined = confineCommand(available, options);
      // Bun's collector log, on the step's Bun: a variable of JavaScriptCore's, read as the process starts.
      const child = Bun.spawn([confined.command, ...confined.args], { env: { ...confined.env, BUN_JSC_logGC: "1", ...extra }, cwd: confined.cwd, stdout: "pipe", stderr: "pipe" });
      const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      expect({ stdout, code }).toEqual({ stdout: "finished\n", code: 0 });
      return stderr.split("\n").filter((line) => line.includes("=> FullCollection")).length;
    };
    expect(await collections({})).toBe(0);
    // The same script exporting no `finished`: the entry finishes, and the collection comes while the script waits.
    expect(await collections({ PLUGBOARD_TEST_NO_FINISHED: "1" })).toBe(1);
  });

  test("a thread started before the confinement (Bun's JIT compiler, kept on) makes the step execve the script instead", async () => {
    const report = await run({ BUN_JSC_useConcurrentJIT: "1" });
    // Run in place, the JIT compiler's thread would hold no part of the confinement.
    expect(report.threads.filter(({ confined }) => !confined)).toEqual([]);
    expect(report.inPlace).toBe(false);
    expect(report.write).toMatch(REFUSED);
  });
});

describe("a confined process started before its rules (confineAhead)", () => {
  const OUTSIDE = `try { require("node:fs").writeFileSync(${JSON.stringify(join(tmpdir(), `plugboard-early-${process.pid}`))}, "x"); console.log("wrote outside"); } catch (error) { console.log("refused: " + error.code); }`;

  const options = { argv: [process.execPath, "-e", OUTSIDE], grants: ["fs.read"] as Permission[], workspace, code: [PACKAGE] };

  /** Spawns OUTSIDE with `confineAhead`, its rules' pipe given (`rules`) or made here (`"pipe"`, its end handed to `send`). */
  async function startedEarly(rules: "given" | "pipe", send: (early: AheadConfinedCommand, ours: number | undefined) => void): Promise<{ code: number; stdout: string; stderr: string }> {
    const early = confineAhead(available, options);
    const stdio = ["ignore", "pipe", "pipe", "ignore", rules === "given" ? early.rulesFd : "pipe"] as const;
    const run = Bun.spawn([early.command, ...early.args], { env: early.env, cwd: early.cwd, stdio: stdio as unknown as ["ignore", "pipe", "pipe"] });
    early.spawned();
    const ours = (run.stdio as unknown[])[RULES_FD];
    send(early, typeof ours === "number" ? ours : undefined);
    const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    return { code, stdout, stderr };
  }

  test("is confined as confineCommand's is: the rules it reads make the same walls", async () => {
    const ran = await startedEarly("given", (early) => early.send(options, []));
    expect(ran).toMatchObject({ code: 0, stderr: "" });
    expect(ran.stdout).toMatch(REFUSED);
  });

  test("runs nothing when its rules' pipe ends without them (the app failed or died before they were made), or after half a line", async () => {
    const none = await startedEarly("given", (early) => early.abandon());
    expect(none).toEqual({ code: 126, stdout: "", stderr: "plugboard sandbox: the rules ended before their line did: nothing is run\n" });
    const half = await startedEarly("pipe", (early, ours) => {
      early.abandon();
      if (ours === undefined) throw new Error("no pipe for the rules");
      writeSync(ours, '{"view":{"mounts":[');
      closeSync(ours);
    });
    expect(half).toEqual({ code: 126, stdout: "", stderr: "plugboard sandbox: the rules ended before their line did: nothing is run\n" });
    expect(existsSync(join(tmpdir(), `plugboard-early-${process.pid}`))).toBe(false);
  });
});

describe("a confining step started ahead of its program (confineAhead)", () => {
  const marker = join(tmpdir(), `plugboard-ahead-${process.pid}`);
  const OUTSIDE = `try { require("node:fs").writeFileSync(${JSON.stringify(marker)}, "x"); console.log("wrote outside"); } catch (error) { console.log("refused: " + error.code); }`;
  const program = { argv: [process.execPath, "-e", OUTSIDE], grants: ["fs.read"] as Permission[], workspace, code: [PACKAGE] };

  /** Spawns a step started ahead with `launch`, then lets `send` give it its rules (or not). */
  async function startedAhead(launch: LaunchOptions, send: (ahead: AheadConfinedCommand) => void): Promise<{ code: number; stdout: string; stderr: string; args: readonly string[] }> {
    const ahead = confineAhead(available, launch);
    const run = Bun.spawn([ahead.command, ...ahead.args], { env: ahead.env, cwd: ahead.cwd, stdio: ["ignore", "pipe", "pipe", "ignore", ahead.rulesFd] as unknown as ["ignore", "pipe", "pipe"] });
    ahead.spawned();
    send(ahead);
    const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    return { code, stdout, stderr, args: ahead.args };
  }

  test("names no program on its command line, and runs the one its rules name, confined by them", async () => {
    const ran = await startedAhead({ grants: [], workspace }, (ahead) => ahead.send({ ...program, workspace }, []));
    expect(ran.args.join(" ")).not.toContain(OUTSIDE);
    expect(ran).toMatchObject({ code: 0, stderr: "" });
    expect(ran.stdout).toMatch(REFUSED);
    expect(existsSync(marker)).toBe(false);
  });

  test("fits only a process of the same command line and environment; sending another's rules runs nothing", async () => {
    const ahead = confineAhead(available, { grants: [], workspace });
    try {
      // Every grant but the network starts the same: its own network namespace, no proxy.
      expect(ahead.fits({ grants: ["fs.read", "fs.write", "process.spawn"], workspace })).toBe(true);
      expect(ahead.fits({ grants: ["network"], workspace })).toBe(false);
      expect(ahead.fits({ grants: ["network"], network: ["example.com"], workspace })).toBe(false);
      expect(ahead.fits({ grants: [], workspace, confineProgram: join(dir, "confine-program.js") })).toBe(false);
      expect(ahead.fits({ grants: [], workspace, env: { EXTRA: "1" } })).toBe(false);
    } finally {
      ahead.abandon();
    }
    const refused = await startedAhead({ grants: [], workspace }, (step) => {
      expect(() => step.send({ ...program, grants: ["network"] }, [])).toThrow("these options need another confining step");
    });
    expect(refused).toMatchObject({ code: 126, stdout: "", stderr: "plugboard sandbox: the rules ended before their line did: nothing is run\n" });
    expect(existsSync(marker)).toBe(false);
  });
});

describe("the mechanism", () => {
  test("is reported missing when its test hook disables a part", () => {
    expect(detectMechanism({ PLUGBOARD_SANDBOX_DISABLE: "landlock" })).toEqual({
      available: false,
      missing: "Landlock (Linux 5.13 or later with Landlock enabled, e.g. lsm=landlock)",
    });
    const namespaces = detectMechanism({ PLUGBOARD_SANDBOX_DISABLE: "namespaces" });
    expect(namespaces.available ? "available" : namespaces.missing).toBe("util-linux unshare with unprivileged user namespaces");
  });

  test("names Landlock's ABI and the namespaces", () => {
    expect(available.description).toMatch(/^Landlock ABI \d+.* \+ user, PID, mount, IPC and network namespaces$/);
  });
});
