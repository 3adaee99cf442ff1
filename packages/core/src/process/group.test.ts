import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { awaitEscapeesCommand, ESCAPEE_COUNT, escapeesCommand, runningNamed, survivors, survivorsNamed, uniqueMarker } from "@plugboard/test-helpers";
import { killGroup, settlesWithin } from "./group.ts";
import { pidNamespacePrefix } from "./pid-namespace.ts";

const FIRST_PROCESS = join(import.meta.dir, "../../test/fixtures/first-process.ts");

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-group-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test("killGroup kills every process of the group, and a group already gone is no error", async () => {
  const child = Bun.spawn(["sh", "-c", "sleep 30 & sleep 30 & echo $!; wait"], { detached: true, stdout: "pipe" });
  const reader = child.stdout.getReader();
  const background = Number(new TextDecoder().decode((await reader.read()).value).trim());
  killGroup(child.pid);
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");
  // The background sleep, in the same group, dies too (a zombie at most, until an init reaps it).
  expect(await survivors([background])).toEqual([]);
  const gone = Bun.spawn(["true"], { detached: true });
  await gone.exited;
  expect(() => killGroup(gone.pid)).not.toThrow();
});

describe.skipIf(pidNamespacePrefix().length === 0)("endOtherProcesses", () => {
  test("as a PID namespace's first process it kills every other one, setsid and double-fork daemons included, and lives on; elsewhere it does nothing", async () => {
    const marker = uniqueMarker();
    const escapees = `${escapeesCommand(marker)}${awaitEscapeesCommand(marker)}`;
    const first = Bun.spawn([...pidNamespacePrefix(), process.execPath, FIRST_PROCESS, escapees], { cwd: dir, stdio: ["pipe", "pipe", "inherit"] });
    try {
      const nextLine = lineReader(first.stdout);
      expect(await nextLine()).toBe("ready as PID 1");
      // A child of the first process has called it already: nothing ended.
      expect(runningNamed(marker)).toHaveLength(ESCAPEE_COUNT);
      first.stdin.write("end\n");
      await first.stdin.flush();
      expect(await nextLine()).toBe("ended");
      expect(await survivorsNamed(marker)).toEqual([]);
      expect(first.exitCode).toBeNull();
    } finally {
      first.kill("SIGKILL");
      await first.exited;
    }
  });
});

test("killGroupOnExit kills a child's group when this process exits; one forgotten is left alone", async () => {
  for (const forget of [false, true]) {
    const marker = uniqueMarker();
    const group = join(import.meta.dir, "group.ts");
    // A process that starts a group of its own, marks it for its exit, and exits.
    const script = `const { killGroupOnExit } = await import(${JSON.stringify(group)});
      const child = Bun.spawn(["bash", "-c", "exec -a ${marker} sleep 30"], { detached: true, stdio: ["ignore", "ignore", "ignore"] });
      while (!require("node:fs").readFileSync("/proc/" + child.pid + "/cmdline", "utf8").startsWith("${marker}")) await Bun.sleep(5);
      const forget = killGroupOnExit(child.pid);
      ${forget ? "forget();" : ""}
      child.unref();
      process.exit(0);`;
    const parent = Bun.spawn([process.execPath, "-e", script], { stdio: ["ignore", "ignore", "inherit"] });
    expect(await parent.exited).toBe(0);
    const left = await survivorsNamed(marker, 300);
    expect(left).toHaveLength(forget ? 1 : 0);
  }
});

test("settlesWithin says whether the promise settled in time", async () => {
  expect(await settlesWithin(Bun.sleep(5), 1000)).toBe(true);
  expect(await settlesWithin(new Promise(() => {}), 20)).toBe(false);
  await expect(settlesWithin(Promise.reject(new Error("boom")), 1000)).rejects.toThrow("boom");
});

/** The lines `stream` shows, one a call, as they come. */
function lineReader(stream: ReadableStream<Uint8Array>): () => Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  return async () => {
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the output ended after ${JSON.stringify(buffered)}`);
      buffered += decoder.decode(value, { stream: true });
    }
    const [line = "", ...rest] = buffered.split("\n");
    buffered = rest.join("\n");
    return line;
  };
}
