import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { awaitEscapeesCommand, ESCAPEE_COUNT, escapeesCommand, uniqueMarker } from "./escapees.ts";
import { isRunning, type ProcessEntry, processesWhere, runningNamed, survivors, survivorsNamed } from "./processes.ts";
import { waitFor } from "./wait-for.ts";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-test-helpers-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

test("the escapees outlive their shell, run under their marker, and survivorsNamed kills and returns them", async () => {
  const marker = uniqueMarker();
  const shell = Bun.spawn(["bash", "-c", `${escapeesCommand(marker)}${awaitEscapeesCommand(marker)}`], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] });
  expect(await shell.exited).toBe(0);
  const running = runningNamed(marker);
  expect(running).toHaveLength(ESCAPEE_COUNT);
  expect((await survivorsNamed(marker, 100)).toSorted()).toEqual(running.toSorted());
  expect(await survivorsNamed(marker, 2000)).toEqual([]);
});

test("a census finds a process by its environment, and a zombie only when asked to", async () => {
  const marker = uniqueMarker();
  // The child ends after its parent has become `sleep`, which never reaps it: a zombie.
  const parent = Bun.spawn(["sh", "-c", "sleep 0.2 & echo $!; exec sleep 30"], { env: { PATH: process.env.PATH ?? "", MARK: marker }, stdout: "pipe" });
  try {
    const { value } = await parent.stdout.getReader().read();
    const zombie = Number(new TextDecoder().decode(value).trim());
    await waitFor("the child ended", () => !isRunning(zombie));
    const isZombie = (process: ProcessEntry) => process.pid === zombie;
    expect(processesWhere(isZombie)).toEqual([]);
    expect(processesWhere(isZombie, { zombies: true })).toEqual([zombie]);
    expect(processesWhere((process) => process.environ.includes(`MARK=${marker}`))).toEqual([parent.pid]);
    expect(isRunning(parent.pid)).toBe(true);
  } finally {
    parent.kill("SIGKILL");
    await parent.exited;
  }
  expect(isRunning(parent.pid)).toBe(false);
  expect(await survivors([parent.pid], 0)).toEqual([]);
});
