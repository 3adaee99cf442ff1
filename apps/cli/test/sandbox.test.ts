/**
 * The sandbox through the CLI: `check` names the mechanism in force; `"sandbox": "required"`
 * on a system without it exits 2 saying what is missing, `auto` says once that it runs
 * unconfined. A missing mechanism is simulated with PLUGBOARD_SANDBOX_DISABLE.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { plugboard, tempFolder, writeConfig } from "./helpers.ts";

let dir = "";
let remove = async () => {};

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "workspace/notes.txt": "hello\n" }));
});
afterAll(() => remove());

const TIMEOUT_MS = 30_000;

async function configIn(name: string, config: Record<string, unknown>): Promise<string> {
  const folder = join(dir, name);
  await Bun.write(join(folder, ".keep"), "");
  return writeConfig(folder, { workspace: "../workspace", ...config });
}

describe("plugboard check", () => {
  test("prints the mechanism in force and that every plugin is confined", async () => {
    const config = await configIn("auto", { sandbox: "auto" });
    const result = await plugboard(["check", "--config", config], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\n {2}sandbox: {3}Landlock ABI \d+.* \+ user, PID, mount, IPC and network namespaces \(every plugin confined\)\n/);
    // Then each layer in force, and what this kernel lacks.
    const layers = result.stdout.split("\n").filter((line) => line.startsWith(" ".repeat(13))).map((line) => line.trim());
    expect(layers.map((line) => line.split(":")[0])).toEqual(["view", expect.stringMatching(/^Landlock ABI \d+$/), "seccomp", "namespaces", "missing on this kernel", "missing on this machine"]);
    expect(layers[2]).toContain("no sockets without network");
  }, TIMEOUT_MS);

  test("a kernel without seccomp filters (simulated) has no mechanism: required refuses, check says why", async () => {
    const config = await configIn("no-seccomp", { sandbox: "required" });
    const result = await plugboard(["check", "--config", config], { cwd: dir, env: { PLUGBOARD_SANDBOX_DISABLE: "seccomp" } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("but this system lacks seccomp system-call filters (a kernel built with CONFIG_SECCOMP_FILTER).");
  }, TIMEOUT_MS);

  test("names the plugins a config runs unconfined", async () => {
    const config = await configIn("one-off", {
      sandbox: "auto",
      plugins: [
        { package: "@plugboard/plugin-read-file", permissions: ["fs.read"], sandbox: false },
        { package: "@plugboard/plugin-glob", permissions: ["fs.read"] },
      ],
    });
    const result = await plugboard(["check", "--config", config], { cwd: dir });
    expect(result.stdout).toContain('(unconfined ("sandbox": false): @plugboard/plugin-read-file)');
  }, TIMEOUT_MS);

  test('says "off" when the config turns the sandbox off', async () => {
    const config = await configIn("off", {});
    const result = await plugboard(["check", "--config", config], { cwd: dir });
    expect(result.stdout).toContain(`  sandbox:   off ("sandbox": "off" in ${config})\n`);
  });
});

describe("a system without the mechanism (simulated)", () => {
  test('"required" exits 2 and says what is missing', async () => {
    const config = await configIn("required", { sandbox: "required" });
    const result = await plugboard(["call", "--config", config, "read_file", '{"path":"notes.txt"}'], {
      cwd: dir,
      env: { PLUGBOARD_SANDBOX_DISABLE: "namespaces" },
    });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain(`The config requires the sandbox ("sandbox": "required" in ${config}), but this system lacks util-linux unshare with unprivileged user namespaces.`);
  });

  test('"auto" runs unconfined and says so once on stderr', async () => {
    const config = await configIn("auto-missing", { sandbox: "auto" });
    const result = await plugboard(["call", "--config", config, "read_file", '{"path":"notes.txt"}'], {
      cwd: dir,
      env: { PLUGBOARD_SANDBOX_DISABLE: "landlock" },
    });
    expect(result).toMatchObject({ code: 0, stdout: "hello\n" });
    expect(result.stderr.match(/plugins run unconfined/g)).toHaveLength(1);
    expect(result.stderr).toContain("plugins run unconfined: this system lacks Landlock");
    const check = await plugboard(["check", "--config", config], { cwd: dir, env: { PLUGBOARD_SANDBOX_DISABLE: "landlock" } });
    expect(check.stdout).toContain("  sandbox:   none: this system lacks Landlock");
  });
});

describe("a Bun whose JIT is off (BUN_JSC_useJIT=0): bun:ffi cannot call the kernel, so there is no mechanism", () => {
  const env = { BUN_JSC_useJIT: "0" };
  const why = "this system lacks bun:ffi calls into glibc's libc.so.6 (bun:ffi needs glibc and Bun's JIT: unset BUN_JSC_useJIT if it is 0)";

  test('"auto" runs the call unconfined and says why once, with no stack trace', async () => {
    const config = await configIn("no-jit-auto", { sandbox: "auto" });
    const result = await plugboard(["call", "--config", config, "read_file", '{"path":"notes.txt"}'], { cwd: dir, env });
    expect(result).toMatchObject({ code: 0, stdout: "hello\n" });
    expect(result.stderr.match(/plugins run unconfined/g)).toHaveLength(1);
    expect(result.stderr).toContain(`plugins run unconfined: ${why}`);
    expect(result.stderr).not.toContain("    at ");
  }, TIMEOUT_MS);

  test('"required" exits 2 and says what is missing', async () => {
    const config = await configIn("no-jit-required", { sandbox: "required" });
    const result = await plugboard(["call", "--config", config, "read_file", '{"path":"notes.txt"}'], { cwd: dir, env });
    expect(result).toMatchObject({ code: 2, stdout: "" });
    expect(result.stderr).toContain(`, but ${why}.`);
    expect(result.stderr).not.toContain("    at ");
  }, TIMEOUT_MS);
});

test("a confined call through the CLI: read_file works, a write outside is refused by the kernel", async () => {
  const config = await configIn("confined-bash", { sandbox: "auto" });
  const read = await plugboard(["call", "--config", config, "read_file", '{"path":"notes.txt"}'], { cwd: dir });
  expect(read).toMatchObject({ code: 0, stdout: "hello\n" });
  // Beside the workspace (a folder that is in the view only as the way to it): read-only.
  const outside = join(dir, "outside.txt");
  const written = await plugboard(["call", "--config", config, "bash", JSON.stringify({ command: `echo x > ${outside}` })], { cwd: dir });
  expect(written.stdout).toContain(`${outside}: Read-only file system`);
  expect(await Bun.file(outside).exists()).toBe(false);
  // Elsewhere on the disk: the system's folders are read-only, and the rest is not there at all.
  const system = "/usr/local/plugboard-outside.txt";
  const refused = await plugboard(["call", "--config", config, "bash", JSON.stringify({ command: `echo x > ${system}` })], { cwd: dir });
  expect(refused.stdout).toContain(`${system}: Read-only file system`);
  expect(await Bun.file(system).exists()).toBe(false);
}, TIMEOUT_MS);

describe("PLUGBOARD_TRACE=1", () => {
  test("a confined call's stages on stderr, the confining step's and the host's among them, each once, in time order; unset, none", async () => {
    const config = await configIn("trace", { sandbox: "auto", plugins: [{ package: "@plugboard/plugin-read-file", permissions: ["fs.read"] }] });
    const args = ["call", "read_file", '{"path":"notes.txt"}', "--config", config];
    // A cache of its own: no yes kept by another test's probe stands in for the step's.
    const cache = join(dir, "trace-cache");
    const traced = await plugboard(args, { cwd: dir, env: { PLUGBOARD_TRACE: "1", XDG_CACHE_HOME: cache } });
    expect(traced.code).toBe(0);
    expect(traced.stdout).toBe("hello\n");
    const marks = traced.stderr
      .split("\n")
      .filter((line) => line.startsWith("plugboard trace "))
      .map((line) => /^plugboard trace (\d+\.\d{3}) (.+)$/.exec(line) ?? []);
    const stages = marks.map(([, , stage]) => stage);
    for (const stage of ["cli: started", "app: config loaded", "host: spawned", "sandbox: namespaces shown by the step started ahead", "confine: started", "confine: seccomp installed", "confine: run in place", "host program: loaded", "host: ready", "host program: runs read_file", "call: result", "cli: exit"]) {
      expect(stages.filter((each) => each === stage)).toEqual([stage]);
    }
    // The step started ahead ran in its namespaces before the app asked: no namespace probe ran.
    expect(stages).not.toContain("sandbox: namespace probe");
    const at = (stage: string) => Number(marks.find(([, , each]) => each === stage)?.[1]);
    expect(at("host: spawned")).toBeLessThan(at("confine: started"));
    expect(at("confine: started")).toBeLessThan(at("host program: loaded"));
    expect(at("host program: runs read_file")).toBeLessThan(at("call: result"));
    // What the step showed is kept: the next start knows, and waits neither for a probe nor for its step.
    const next = await plugboard(args, { cwd: dir, env: { PLUGBOARD_TRACE: "1", XDG_CACHE_HOME: cache } });
    expect(next).toMatchObject({ code: 0, stdout: "hello\n" });
    const nextStages = next.stderr.split("\n").flatMap((line) => /^plugboard trace \d+\.\d{3} (.+)$/.exec(line)?.[1] ?? []);
    expect(nextStages).toContain("sandbox: namespaces known to work");
    expect(nextStages.filter((stage) => stage.startsWith("sandbox: namespace"))).toEqual(["sandbox: namespaces known to work"]);
    expect(nextStages).not.toContain("sandbox: namespaces shown by the step started ahead");
    const quiet = await plugboard(args, { cwd: dir });
    expect(quiet.code).toBe(0);
    expect(quiet.stderr).not.toContain("plugboard trace");
  }, TIMEOUT_MS);
});

describe("the namespace probe's yes, kept between starts", () => {
  test("a start without a step ahead probes once, the next one knows; check probes afresh, and says what the machine offers now", async () => {
    const config = await configIn("kept-yes", { sandbox: "auto" });
    const env = { PLUGBOARD_TRACE: "1", XDG_CACHE_HOME: join(dir, "kept-yes-cache") };
    const stages = (run: { stderr: string }) => run.stderr.split("\n").flatMap((line) => /^plugboard trace \d+\.\d{3} (sandbox: .+)$/.exec(line)?.[1] ?? []);
    const first = await plugboard(["tools", "--config", config], { cwd: dir, env });
    const second = await plugboard(["tools", "--config", config], { cwd: dir, env });
    expect(stages(first)).toEqual(["sandbox: namespace probe"]);
    expect(stages(second)).toEqual(["sandbox: namespaces known to work"]);
    expect(second).toMatchObject({ code: 0, stdout: first.stdout });
    const checked = await plugboard(["check", "--config", config], { cwd: dir, env });
    expect(stages(checked)).toEqual(["sandbox: namespace probe"]);
    expect(checked.stdout).toContain("(every plugin confined)");
  }, TIMEOUT_MS);

  test("a kept yes that no longer holds fails the confined call with unshare's words and runs nothing unconfined; it is forgotten, and the next start probes and says why it runs unconfined", async () => {
    const folder = join(dir, "stale-yes");
    const config = await configIn("stale-yes", { sandbox: "auto", plugins: [{ package: "@plugboard/plugin-read-file", permissions: ["fs.read"] }] });
    // An unshare that works until a file beside it says otherwise: its own file, and so the key, unchanged.
    const real = Bun.which("unshare");
    if (real === null) throw new Error("this test needs util-linux unshare");
    const bin = join(folder, "bin");
    await Bun.write(join(bin, "unshare"), `#!/bin/sh\nif [ -e "${bin}/refuse" ]; then echo "unshare: unshare failed: Operation not permitted" >&2; exit 1; fi\nexec ${real} "$@"\n`);
    expect(Bun.spawnSync(["chmod", "755", join(bin, "unshare")]).exitCode).toBe(0);
    const cache = join(folder, "cache");
    const env = { PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, XDG_CACHE_HOME: cache };
    const args = ["call", "--config", config, "read_file", '{"path":"notes.txt"}'];
    const kept = await plugboard(args, { cwd: dir, env });
    expect(kept).toMatchObject({ code: 0, stdout: "hello\n" });
    expect(readdirSync(join(cache, "plugboard/namespaces"))).toHaveLength(1);
    // Now the kernel (here, the stand-in) refuses: what was kept is wrong.
    await Bun.write(join(bin, "refuse"), "");
    const failed = await plugboard(args, { cwd: dir, env });
    expect(failed.code).not.toBe(0);
    expect(failed.stdout).not.toContain("hello");
    expect(failed.stderr).toContain("unshare: unshare failed: Operation not permitted");
    expect(existsSync(join(cache, "plugboard/namespaces"))).toBe(false);
    const probed = await plugboard(args, { cwd: dir, env });
    expect(probed).toMatchObject({ code: 0, stdout: "hello\n" });
    expect(probed.stderr).toContain("plugins run unconfined: this system lacks unprivileged user namespaces (unshare: unshare failed: Operation not permitted)");
  }, TIMEOUT_MS);
});
