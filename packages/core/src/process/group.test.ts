import { expect, test } from "bun:test";
import { killGroup, settlesWithin } from "./group.ts";

test("killGroup kills every process of the group, and a group already gone is no error", async () => {
  const child = Bun.spawn(["sh", "-c", "sleep 30 & sleep 30 & echo $!; wait"], { detached: true, stdout: "pipe" });
  const reader = child.stdout.getReader();
  const background = Number(new TextDecoder().decode((await reader.read()).value).trim());
  killGroup(child.pid);
  await child.exited;
  expect(child.signalCode).toBe("SIGKILL");
  // The background sleep, in the same group, dies too (a zombie at most, until an init reaps it).
  const deadline = Date.now() + 2000;
  while (Date.now() < deadline && !["Z", "X", "gone"].includes(await stateOf(background))) await Bun.sleep(10);
  expect(["Z", "X", "gone"]).toContain(await stateOf(background));
  const gone = Bun.spawn(["true"], { detached: true });
  await gone.exited;
  expect(() => killGroup(gone.pid)).not.toThrow();
});

test("settlesWithin says whether the promise settled in time", async () => {
  expect(await settlesWithin(Bun.sleep(5), 1000)).toBe(true);
  expect(await settlesWithin(new Promise(() => {}), 20)).toBe(false);
  await expect(settlesWithin(Promise.reject(new Error("boom")), 1000)).rejects.toThrow("boom");
});

/** A process's state letter from /proc (`R`, `S`, `Z`…), or `gone`. */
async function stateOf(pid: number): Promise<string> {
  const stat = await Bun.file(`/proc/${pid}/stat`)
    .text()
    .catch(() => "");
  return stat === "" ? "gone" : stat.charAt(stat.lastIndexOf(")") + 2);
}
