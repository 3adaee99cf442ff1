import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processesWhere, waitFor } from "@plugboard/test-helpers";
import { killGroup } from "./group.ts";
import { pidNamespacePrefix, underInit } from "./pid-namespace.ts";

let dir: string;

beforeAll(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), "plugboard-init-")));
});

afterAll(() => rm(dir, { recursive: true, force: true }));

interface InitRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** What the init wrote on fd 3. */
  readonly report: string;
}

/** Runs `sh -c SCRIPT` (or `argv`) under the init, in a PID namespace where one can be made, as bash does. */
async function underOurInit(script: string | string[], options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}): Promise<InitRun> {
  const argv = typeof script === "string" ? ["sh", "-c", script] : script;
  const child = Bun.spawn([...pidNamespacePrefix(), ...underInit(argv)], {
    cwd: options.cwd ?? dir,
    env: options.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    detached: true,
    stdio: [options.stdin === undefined ? "ignore" : new Blob([options.stdin]), "pipe", "pipe", "pipe"],
  });
  const [stdout, stderr, report] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    Bun.file(child.stdio[3] as number).text(),
    child.exited,
  ]);
  return { exitCode: child.exitCode, stdout, stderr, report };
}

describe("init: the ending it reports on fd 3", () => {
  test("an exit: its code, which the init exits with too", async () => {
    expect(await underOurInit("echo out; exit 3")).toEqual({ exitCode: 3, stdout: "out\n", stderr: "", report: "exit 3\n" });
  });

  test("a program that signals itself ends by that signal: the init exits with 128+N and reports the signal", async () => {
    expect(await underOurInit("echo before; kill -TERM $$; echo after")).toEqual({
      exitCode: 143,
      stdout: "before\n",
      stderr: "",
      report: "signal SIGTERM\n",
    });
    expect(await underOurInit("echo before; kill -KILL $$; echo after")).toMatchObject({
      exitCode: 137,
      stdout: "before\n",
      report: "signal SIGKILL\n",
    });
  });

  test("exit 143 has SIGTERM's exit status; only the report tells them apart", async () => {
    expect(await underOurInit("exit 143")).toMatchObject({ exitCode: 143, report: "exit 143\n" });
  });

  test("a program that cannot be started: 127, and a message on stderr", async () => {
    const run = await underOurInit([join(dir, "no-such-program")]);
    expect(run).toMatchObject({ exitCode: 127, stdout: "", report: "exit 127\n" });
    expect(run.stderr).toStartWith(`init: cannot run ${join(dir, "no-such-program")}: `);
  });
});

describe("init: what the program inherits", () => {
  test("stdin, cwd and environment are the init's; fd 3 is not passed on", async () => {
    const script = 'cat; pwd; echo "$INIT_TEST"; test -e /proc/self/fd/3 && echo fd3-open || echo fd3-closed';
    const run = await underOurInit(script, { stdin: "typed\n", env: { PATH: process.env.PATH ?? "", INIT_TEST: "passed" } });
    expect(run.stdout).toBe(`typed\n${dir}\npassed\nfd3-closed\n`);
  });

  test("the folder's .env and bunfig.toml are not loaded (Bun would load both for the init)", async () => {
    const folder = await mkdtemp(join(dir, "bun-files-"));
    await writeFile(join(folder, ".env"), "FROM_DOTENV=leaked\n");
    await writeFile(join(folder, "preload.ts"), 'console.log("preloaded");\n');
    await writeFile(join(folder, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
    expect((await underOurInit('echo "[$FROM_DOTENV]"', { cwd: folder })).stdout).toBe("[]\n");
  });
});

describe.skipIf(pidNamespacePrefix().length === 0)("init: as the first process of a PID namespace", () => {
  test("reaps the orphans reparented to it", async () => {
    // Each orphan runs as `MARK` (a link to sleep), so /proc names it, zombie or not.
    const mark = `orphan${process.pid % 100000}`;
    await symlink(Bun.which("sleep") ?? "/bin/sleep", join(dir, mark));
    const orphans = `for i in $(seq 50); do (sh -c "touch ${mark}.$i; exec ./${mark} 0.05" &); done`;
    const child = Bun.spawn([...pidNamespacePrefix(), ...underInit(["sh", "-c", `${orphans}; exec sleep 30`])], {
      cwd: dir,
      detached: true,
      stdio: ["ignore", "ignore", "ignore", "ignore"],
    });
    try {
      await waitFor("the 50 orphans started", async () => (await readdir(dir)).filter((name) => name.startsWith(`${mark}.`)).length === 50);
      // Each has exited (or become a zombie) well before this, so none is still on its way to being named MARK.
      await Bun.sleep(500);
      const orphans = () => processesWhere((process) => process.name === mark, { zombies: true });
      await waitFor("no orphan is left, running or zombie", () => orphans().length === 0, { timeoutMs: 2000 });
    } finally {
      killGroup(child.pid);
    }
  });

  test("ends with the program, without waiting for what the program left running", async () => {
    const started = Date.now();
    const run = await underOurInit("sleep 30 >/dev/null 2>&1 & echo started");
    expect(run).toMatchObject({ exitCode: 0, stdout: "started\n", report: "exit 0\n" });
    expect(Date.now() - started).toBeLessThan(5000);
  });
});

test("init: imports nothing but what it needs, so it starts in the time of a bare Bun script", async () => {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const imports = async (file: string) => transpiler.scanImports(await readFile(join(import.meta.dir, file), "utf8")).map(({ path }) => path);
  expect(await imports("init.ts")).toEqual(["node:os", "bun:ffi", "./ending.ts", "./libc.ts"]);
  expect(await imports("ending.ts")).toEqual([]);
  expect(await imports("libc.ts")).toEqual(["bun:ffi"]);
});
