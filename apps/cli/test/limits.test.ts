/**
 * The limits of a confined tree (DESIGN.md, "Nothing a plugin leaves behind is trusted
 * later" → "Limits"), tried through the real CLI with small limits and bounded attacks just
 * over them — never an unbounded fork bomb: each is refused by the kernel, the result ends
 * with the line naming the limit and its key, the app goes on to its next call; each twin
 * (sandbox off, or room to spare) shows the attack's effect. Also: confined processes hold no
 * capabilities, the host protocol's token is nowhere in the sandbox's /proc, the tree's
 * cgroups are removed after the call and those a gone app left are swept.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, rmdirSync } from "node:fs";
import { join } from "node:path";
import { cgroupSupport } from "@plugboard/sandbox";
import { startScriptedModel } from "@plugboard/testing";
import { FIRST_PARTY, type Finished, finished, plugboard, spawnPlugboard, tempFolder, toolResults } from "./helpers.ts";

const TIMEOUT_MS = 60_000;
const READING_SERVER = join(import.meta.dir, "fixtures/reading-server/server.ts");
const MAIN = join(import.meta.dir, "../src/main.ts");
/** Root can run the CLI as `nobody` (65534), a user that may write no cgroup: the RLIMIT_NPROC path. */
const NOBODY = ["--reuid=65534", "--regid=65534", "--clear-groups"];
/**
 * setpriv, where the tests run as root and nobody may read the CLI's sources and run this Bun (a
 * checkout, or a Bun installed by npm into a prefix, under a folder only root may enter, as
 * `mktemp -d` makes, cannot be run as nobody).
 */
const asNobody = ((setpriv) =>
  setpriv !== null && Bun.spawnSync([setpriv, ...NOBODY, "/bin/sh", "-c", 'test -r "$1" && test -x "$2"', "sh", MAIN, process.execPath]).exitCode === 0 ? setpriv : null)(
  process.getuid?.() === 0 ? Bun.which("setpriv") : null,
);
if (asNobody === null) {
  const why = process.getuid?.() !== 0 ? "these tests do not run as root" : Bun.which("setpriv") === null ? "setpriv is not on PATH" : `nobody may not read ${MAIN} or run ${process.execPath} (a folder above is closed to other users)`;
  console.warn(`limits.test.ts: the RLIMIT_NPROC tests as nobody are skipped: ${why}`);
}
const BASH = FIRST_PARTY[0];
const support = cgroupSupport();
const pidsFolder = "folder" in support.pids ? support.pids.folder : undefined;
const memoryFolder = "folder" in support.memory ? support.memory.folder : undefined;

/** A folder with a workspace and a config of bash (confined unless `sandbox` says otherwise) with `limits`. */
async function setUp(limits: Record<string, unknown>, sandbox: "auto" | "off" = "auto") {
  const folder = await tempFolder({ "workspace/.keep": "" });
  const config = join(folder.dir, "plugboard.json");
  await Bun.write(config, JSON.stringify({ workspace: "./workspace", sandbox, limits, plugins: [BASH] }));
  return { folder, config };
}

/** `plugboard run` with a scripted model that calls bash with each of `commands` in turn: each call's result, and how the app ended. */
async function calls(config: string, cwd: string, commands: readonly string[]) {
  await using model = await startScriptedModel([
    ...commands.map((command, index) => ({ toolCalls: [{ id: `call_${index}`, name: "bash", arguments: { command } }] })),
    { content: "Done." },
  ]);
  const child = spawnPlugboard(["run", "--config", config, "--base-url", model.baseURL, "go"], { cwd });
  const ended = await finished(child);
  const results = commands.map((_, index) => toolResults(model, index + 1)[`call_${index}`] ?? "(no result)");
  return { ...ended, results, pid: child.pid };
}

/** A program that starts `count` sleeps at once, counts those the kernel refused (printing the first refusal), and kills what it started: a bounded attack. */
const sleeps = (count: number) =>
  `bun -e 'let started = 0, failed = 0, first = ""; const children = [];
  for (let i = 0; i < ${count}; i++) { try { children.push(Bun.spawn(["sleep", "5"])); started++ } catch (error) { failed++; first ||= String(error) } }
  for (const child of children) child.kill("SIGKILL");
  console.log("started", started, "failed", failed); if (first) console.error(first)'`;

/** The cgroups named after the app `pid` left below the app's own. */
function leftBy(pid: number): string[] {
  return [pidsFolder, memoryFolder].flatMap((folder) => (folder === undefined ? [] : readdirSync(folder).filter((name) => name.startsWith(`plugboard-${pid}-`))));
}

describe("processes", () => {
  test("60 processes started at once with a limit of 40: the extra ones are refused, the result says which limit, the next call works, no cgroup is left", async () => {
    const { folder, config } = await setUp({ processes: 40 });
    await using _ = folder;
    const run = await calls(config, folder.dir, [sleeps(60), "echo next call"]);
    expect(run).toMatchObject({ code: 0, stdout: "Done.\n" });
    const [attack = "", next] = run.results;
    const [, started, failed] = /started (\d+) failed (\d+)/.exec(attack) ?? [];
    expect(Number(failed)).toBeGreaterThan(0);
    expect(Number(started) + Number(failed)).toBe(60);
    expect(attack.split("\n").at(-1)).toBe(
      `plugboard: refused by a limit: @plugboard/plugin-bash reached its limit of 40 processes (threads count too), so starting another failed; raise "limits.processes" in ${config} to allow more`,
    );
    expect(next).toBe("next call\nexit code: 0");
    expect(leftBy(run.pid)).toEqual([]);
  }, TIMEOUT_MS);

  test("the twin: with the sandbox off, all 60 start", async () => {
    const { folder, config } = await setUp({ processes: 40 }, "off");
    await using _ = folder;
    const [attack] = (await calls(config, folder.dir, [sleeps(60)])).results;
    expect(attack).toBe("started 60 failed 0\nexit code: 0");
  }, TIMEOUT_MS);
});

describe("orphans", () => {
  test("what background jobs leave behind is reaped by the host: three calls each leaving 30 finished orphans all run under a limit of 64, and no zombie stays", async () => {
    const { folder, config } = await setUp({ processes: 64 });
    await using _ = folder;
    // Each job's subshell exits at once: its sleep is an orphan of the host, which ends 0.05 s
    // later. A call alone stays under the limit even on a busy machine, where orphans overlap
    // and the host's threads (which count too) are many; unreaped, the three calls' 90 zombies
    // would not.
    const orphans = (name: string) => `for i in $(seq 30); do (sleep 0.05 &); sleep 0.06; done; sleep 0.2; echo ${name}`;
    const zombies = "grep -l '^[0-9]* ([^)]*) Z' /proc/[0-9]*/stat 2>/dev/null | wc -l";
    const run = await calls(config, folder.dir, [orphans("first"), orphans("second"), orphans("third"), zombies]);
    expect(run.results).toEqual(["first\nexit code: 0", "second\nexit code: 0", "third\nexit code: 0", "0\nexit code: 0"]);
  }, TIMEOUT_MS);
});

describe.skipIf(asNobody === null)("processes, run by a user other than root who may write no cgroup (nobody, through setpriv)", () => {
  /** `plugboard ARGS` as nobody in a folder nobody may use, its caches there too. */
  async function runAsNobody(limits: Record<string, unknown>, args: (config: string) => string[]): Promise<Finished> {
    const folder = await tempFolder({ "workspace/.keep": "" });
    await using _ = folder;
    const config = join(folder.dir, "plugboard.json");
    await Bun.write(config, JSON.stringify({ workspace: "./workspace", sandbox: "auto", limits, plugins: [BASH] }));
    for (const path of [folder.dir, join(folder.dir, "workspace"), config]) chmodSync(path, 0o777);
    const home = { HOME: folder.dir, XDG_CACHE_HOME: join(folder.dir, "cache"), XDG_STATE_HOME: join(folder.dir, "state"), PATH: "/usr/local/bin:/usr/bin:/bin" };
    const child = Bun.spawn([asNobody ?? "", ...NOBODY, process.execPath, MAIN, ...args(config)], {
      cwd: folder.dir,
      env: home,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    await child.stdin.end();
    return await finished(child);
  }

  test("RLIMIT_NPROC bounds them: 60 at once with a limit of 40 are refused, the result says which limit; check says so; with 512 all start (the twin)", async () => {
    const check = await runAsNobody({ processes: 40 }, (config) => ["check", "--offline", "--config", config]);
    expect(check.stdout).toContain("  limits:    processes 40 (RLIMIT_NPROC; no pids cgroup: ");
    const attack = (config: string) => ["call", "--config", config, "bash", JSON.stringify({ command: sleeps(60) })];
    const refused = await runAsNobody({ processes: 40 }, attack);
    const [, started, failed] = /started (\d+) failed (\d+)/.exec(refused.stdout) ?? [];
    expect(Number(failed)).toBeGreaterThan(0);
    expect(Number(started) + Number(failed)).toBe(60);
    expect(refused.stdout.trim().split("\n").at(-1)).toStartWith("plugboard: refused by a limit: @plugboard/plugin-bash reached its limit of 40 processes");
    expect((await runAsNobody({ processes: 512 }, attack)).stdout).toBe("started 60 failed 0\nexit code: 0\n");
  }, TIMEOUT_MS);
});

describe("tmp", () => {
  const fill = "head -c 16M /dev/zero > /tmp/f && echo written";

  test("16 MiB into an 8 MiB private /tmp: no space left, and the result says which limit", async () => {
    const { folder, config } = await setUp({ tmp: "8 MiB" });
    await using _ = folder;
    const [result = ""] = (await calls(config, folder.dir, [fill])).results;
    expect(result).toContain("No space left on device");
    expect(result).not.toContain("written");
    expect(result.split("\n").at(-1)).toBe(
      `plugboard: refused by a limit: each private temporary folder of @plugboard/plugin-bash (/tmp, /var/tmp, /dev/shm, /run, its HOME) holds at most 8 MiB; raise "limits.tmp" in ${config} to allow more`,
    );
  }, TIMEOUT_MS);

  test("the twin: with 64 MiB it is written", async () => {
    const { folder, config } = await setUp({ tmp: "64 MiB" });
    await using _ = folder;
    expect((await calls(config, folder.dir, [fill])).results).toEqual(["written\nexit code: 0"]);
  }, TIMEOUT_MS);
});

describe.skipIf(memoryFolder === undefined)("memory (a memory cgroup here)", () => {
  const allocate = `bun -e 'const kept = []; for (let i = 0; i < 20; i++) kept.push(Buffer.alloc(10 * 1024 * 1024, 1)); console.log("allocated", kept.length * 10, "MB")'`;

  test("200 MB allocated under a 64 MiB limit: the process is killed, the result says which limit, the next call works", async () => {
    const { folder, config } = await setUp({ memory: "64 MiB" });
    await using _ = folder;
    const run = await calls(config, folder.dir, [allocate, "echo next call"]);
    expect(run.code).toBe(0);
    const [result = "", next] = run.results;
    // bash runs the one program in its place: the result tells how it ended.
    expect(result).toContain("Terminated by SIGKILL");
    expect(result).not.toContain("allocated");
    expect(result.split("\n").at(-1)).toBe(
      `plugboard: refused by a limit: @plugboard/plugin-bash used its limit of 64 MiB of memory, so the kernel ended a process of it; raise "limits.memory" in ${config} to allow more`,
    );
    expect(next).toBe("next call\nexit code: 0");
  }, TIMEOUT_MS);

  test("the twin: under the default limit it is allocated", async () => {
    const { folder, config } = await setUp({});
    await using _ = folder;
    expect((await calls(config, folder.dir, [allocate])).results).toEqual(["allocated 200 MB\nexit code: 0"]);
  }, TIMEOUT_MS);
});

describe("capabilities", () => {
  const capabilities = "grep ^Cap /proc/self/status | tr -s '\\t' ' '";

  test("a confined bash holds none: its five sets are empty", async () => {
    const { folder, config } = await setUp({});
    await using _ = folder;
    const [result] = (await calls(config, folder.dir, [capabilities])).results;
    expect(result).toBe(`${["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"].map((set) => `${set}: 0000000000000000`).join("\n")}\nexit code: 0`);
  }, TIMEOUT_MS);

  test.skipIf(process.getuid?.() !== 0)("the twin: unconfined, root's bash holds them", async () => {
    const { folder, config } = await setUp({}, "off");
    await using _ = folder;
    const [result = ""] = (await calls(config, folder.dir, [capabilities])).results;
    expect(result).toContain("CapEff: ");
    expect(result).not.toContain("CapEff: 0000000000000000");
  }, TIMEOUT_MS);
});

describe("the host protocol's token", () => {
  // Every UUID in the command lines and environments of the sandbox's processes, and the host's (PID 1) memory maps.
  const scan = [
    `(exec -a "planted-$(cat /proc/sys/kernel/random/uuid)" sleep 5) & sleep 0.2`,
    "cat /proc/[0-9]*/cmdline /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -oE '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}' | sed 's/^/found /'",
    "cat /proc/1/environ > /dev/null || echo pid 1 unreadable",
    "kill %1",
  ].join("; ");

  test("no process of the sandbox finds it in /proc: only the UUID planted on a command line is found, and the host's own files are unreadable", async () => {
    const { folder, config } = await setUp({});
    await using _ = folder;
    const [result = ""] = (await calls(config, folder.dir, [scan])).results;
    // The planted one proves the scan finds a UUID on a command line; the host's token is not there.
    expect(result.match(/^found /gm)?.length).toBe(1);
    expect(result).toContain("cat: /proc/1/environ: Permission denied");
    expect(result).toContain("pid 1 unreadable");
  }, TIMEOUT_MS);
});

describe("cgroups", () => {
  test("check prints the limits in force and what this machine lacks", async () => {
    const { folder, config } = await setUp({ processes: 40, memory: "1 GiB", tmp: "8 MiB" });
    await using _ = folder;
    const result = await plugboard(["check", "--offline", "--config", config], { cwd: folder.dir });
    expect(result.code).toBe(0);
    const processes = pidsFolder === undefined ? "" : `processes 40 (pids cgroup v${"folder" in support.pids ? support.pids.version : 0}), `;
    const memory = memoryFolder === undefined ? "" : `memory 1 GiB (memory cgroup v${"folder" in support.memory ? support.memory.version : 0}), `;
    expect(result.stdout).toContain(`  limits:    ${processes}${memory}tmp 8 MiB each (tmpfs size)\n             missing on this machine: `);
  }, TIMEOUT_MS);

  test.skipIf(pidsFolder === undefined)("a confined MCP server runs in cgroups of its own, removed when the app ends; unconfined (the twin) in the app's", async () => {
    await using folder = await tempFolder({ "workspace/.keep": "" });
    const read = async (sandbox: boolean) => {
      const config = join(folder.dir, `plugboard-${sandbox}.json`);
      const entry = { mcp: { command: READING_SERVER }, name: "srv", permissions: [], ...(sandbox ? {} : { sandbox: false }) };
      await Bun.write(config, JSON.stringify({ workspace: "./workspace", sandbox: "auto", plugins: [entry] }));
      const child = spawnPlugboard(["call", "--config", config, "read", JSON.stringify({ path: "/proc/self/cgroup" })], { cwd: folder.dir });
      return { ...(await finished(child)), pid: child.pid };
    };
    const confined = await read(true);
    expect(confined.code).toBe(0);
    expect(confined.stdout).toContain(`/plugboard-${confined.pid}-`);
    expect(leftBy(confined.pid)).toEqual([]);
    const unconfined = await read(false);
    expect(unconfined.code).toBe(0);
    expect(unconfined.stdout).not.toContain("/plugboard-");
  }, TIMEOUT_MS);

  test.skipIf(pidsFolder === undefined)("a cgroup left by an app that is gone is removed when the next app confines a plugin", async () => {
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    const leftovers = [pidsFolder, memoryFolder].flatMap((parent) => (parent === undefined ? [] : [join(parent, `plugboard-${gone.pid}-1`)]));
    for (const leftover of leftovers) mkdirSync(leftover);
    try {
      const { folder, config } = await setUp({});
      await using _ = folder;
      expect((await calls(config, folder.dir, ["echo hi"])).results).toEqual(["hi\nexit code: 0"]);
      for (const leftover of leftovers) expect({ leftover, exists: existsSync(leftover) }).toEqual({ leftover, exists: false });
    } finally {
      for (const leftover of leftovers) if (existsSync(leftover)) rmdirSync(leftover);
    }
  }, TIMEOUT_MS);
});
