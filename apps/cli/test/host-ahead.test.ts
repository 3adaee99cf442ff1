/**
 * `plugboard call TOOL` starts the confining step of its host ahead (bootstrap's
 * host-ahead.ts), as the plan begins, before the workspace is opened and the plugins found: the
 * host that fits takes it, and a step no host takes is ended with the app's build, having
 * run nothing. Observed through the trace (`PLUGBOARD_TRACE=1`: each spawn and each
 * confining step's start is a mark) and through /proc: the steps carry the test's `TZ`,
 * which the sandbox passes on to what it starts.
 */
import { expect, test } from "bun:test";
import { chmod } from "node:fs/promises";
import { join } from "node:path";
import { processesWhere, survivors } from "@plugboard/test-helpers";
import { FIRST_PARTY, plugboard, STACK_FRAME, tempFolder, writeConfig } from "./helpers.ts";

/** The trace's marks of a run, in order. */
function marks(stderr: string): string[] {
  return stderr.split("\n").flatMap((line) => /^plugboard trace \d+\.\d+ (.+)$/.exec(line)?.[1] ?? []);
}

const count = (all: readonly string[], mark: string) => all.filter((each) => each === mark).length;

/** The processes that carry `marker` as their `TZ`: what the run started in the sandbox, the steps started ahead among them. */
const carrying = (marker: string) => () => processesWhere(({ environ }) => environ.includes(`TZ=${marker}`));

test("the called host takes the step started ahead: one spawn, before the plugins are found; a command that calls nothing starts none", async () => {
  await using folder = await tempFolder({ "workspace/notes.txt": "first\nsecond\n" });
  const config = await writeConfig(folder.dir, { sandbox: "auto" });
  const marker = `plugboard-ahead-${process.pid}-taken`;
  const env = { PLUGBOARD_TRACE: "1", TZ: marker, XDG_CACHE_HOME: join(folder.dir, "cache") };
  // The first call lists every host's tools (the listing cache is empty), the second starts only read_file's.
  await plugboard(["call", "read_file", '{"path":"notes.txt"}', "--config", config], { cwd: folder.dir, env });
  const called = await plugboard(["call", "read_file", '{"path":"notes.txt"}', "--config", config], { cwd: folder.dir, env });
  expect({ code: called.code, stdout: called.stdout }).toEqual({ code: 0, stdout: "first\nsecond\n" });
  const run = marks(called.stderr);
  expect(count(run, "host: spawned")).toBe(1);
  expect(count(run, "confine: started")).toBe(1);
  expect(run.indexOf("host: spawned")).toBeLessThan(run.indexOf("app: plugins resolved"));
  expect(await survivors(carrying(marker))).toEqual([]);

  const listed = await plugboard(["tools", "--config", config], { cwd: folder.dir, env });
  expect(listed.code).toBe(0);
  expect(count(marks(listed.stderr), "host: spawned")).toBe(0);
}, 60_000);

test("a step no host can take (the called plugin has the whole network: no network namespace) is ended, having run nothing, and the call runs in a host of its own", async () => {
  await using folder = await tempFolder({ "workspace/.keep": "" });
  const [bash, ...others] = FIRST_PARTY;
  const config = await writeConfig(folder.dir, { sandbox: "auto", plugins: [{ ...bash, permissions: [...(bash?.permissions ?? []), "network"] }, ...others] });
  const marker = `plugboard-ahead-${process.pid}-left`;
  const env = { PLUGBOARD_TRACE: "1", TZ: marker, XDG_CACHE_HOME: join(folder.dir, "cache") };
  // The network interfaces the host sees: the machine's with the whole network, only `lo` in a network namespace of its own (as the step started ahead has).
  const interfaces = JSON.stringify({ command: "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ' '" });
  await plugboard(["call", "bash", interfaces, "--config", config], { cwd: folder.dir, env });
  const called = await plugboard(["call", "bash", interfaces, "--config", config], { cwd: folder.dir, env });
  expect(called.code).toBe(0);
  expect(called.stdout).toEndWith("\nexit code: 0\n");
  expect(called.stdout).toMatch(/\S/);
  expect(called.stdout.split("\n")[0]?.trim()).not.toBe("lo");
  const run = marks(called.stderr);
  // The step started ahead, then the host's own: only the second one's confining step is heard from (the first ran nothing).
  expect(count(run, "host: spawned")).toBe(2);
  expect(count(run, "confine: started")).toBe(1);
  expect(await survivors(carrying(marker))).toEqual([]);
}, 60_000);

test("an unshare that fails, or cannot be run at all, leaves no step behind and no stack trace: auto runs the call unconfined and says why, required refuses", async () => {
  await using folder = await tempFolder({
    "workspace/notes.txt": "first\n",
    "refusing/unshare": '#!/bin/sh\necho "unshare: unshare failed: Operation not permitted" >&2\nexit 1\n',
    "unrunnable/unshare": "#!/nonexistent/interpreter\nexit 0\n",
  });
  for (const [bin, why] of [
    ["refusing", "unshare failed: Operation not permitted"],
    ["unrunnable", "cannot be run: ENOENT"],
  ] as const) {
    await chmod(join(folder.dir, bin, "unshare"), 0o755);
    const marker = `plugboard-ahead-${process.pid}-${bin}`;
    const env = { PATH: `${join(folder.dir, bin)}:${process.env.PATH ?? "/usr/bin:/bin"}`, PLUGBOARD_TRACE: "1", TZ: marker, XDG_CACHE_HOME: join(folder.dir, "cache") };
    const auto = await writeConfig(folder.dir, { sandbox: "auto" });
    const called = await plugboard(["call", "read_file", '{"path":"notes.txt"}', "--config", auto], { cwd: folder.dir, env });
    expect({ bin, code: called.code, stdout: called.stdout }).toEqual({ bin, code: 0, stdout: "first\n" });
    expect(called.stderr).toContain("plugins run unconfined");
    expect(called.stderr).toContain(why);
    expect(called.stderr).not.toContain(STACK_FRAME);
    // The refusing one started a step ahead (the probe had not answered yet); it ran nothing and is gone.
    expect(count(marks(called.stderr), "host: spawned")).toBe(bin === "refusing" ? 1 : 0);
    expect(count(marks(called.stderr), "confine: started")).toBe(0);
    expect(await survivors(carrying(marker))).toEqual([]);
    const required = await writeConfig(folder.dir, { sandbox: "required" });
    const refused = await plugboard(["call", "read_file", '{"path":"notes.txt"}', "--config", required], { cwd: folder.dir, env });
    expect({ bin, code: refused.code, stdout: refused.stdout }).toEqual({ bin, code: 2, stdout: "" });
    expect(refused.stderr).toContain(why);
    expect(refused.stderr).not.toContain(STACK_FRAME);
  }
}, 60_000);
