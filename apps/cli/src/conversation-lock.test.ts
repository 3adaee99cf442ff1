import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@plugboard/test-helpers";
import { lockConversation, removeStale } from "./conversation-lock.ts";

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), "plugboard-lock-"));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

/** When process `pid` started, as /proc/PID/stat says (clock ticks since boot). */
function startTime(pid: number): number | undefined {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
}

/** The pid of a process that has ended. */
async function endedPid(): Promise<number> {
  const child = Bun.spawn(["true"]);
  await child.exited;
  return child.pid;
}

describe("a stale lock taken over", () => {
  test("by the process that judged it stale: its pid and start time then name the lock", async () => {
    const file = join(folder, "c1.lock");
    writeFileSync(file, `${await endedPid()}\n`);
    const lock = lockConversation(folder, "c1");
    expect(readFileSync(file, "utf8")).toBe(`${process.pid} ${startTime(process.pid)}\n`);
    lock.release();
    expect(readdirSync(folder)).toEqual([]);
  });

  test("two that judged the same lock stale: the second does not remove the lock the first has just made", async () => {
    const file = join(folder, "c1.lock");
    const gone = await endedPid();
    // The first removed the stale lock and made its own, after the second had read the stale one.
    const first = process.ppid;
    writeFileSync(file, `${first}\n`);
    expect(removeStale(file, `${gone}`)).toBe(false);
    expect(readFileSync(file, "utf8")).toBe(`${first}\n`);
    expect(readdirSync(folder)).toEqual(["c1.lock"]);
  });

  test("a lock still naming the process judged gone is removed", async () => {
    const file = join(folder, "c1.lock");
    const gone = await endedPid();
    writeFileSync(file, `${gone}\n`);
    expect(removeStale(file, `${gone}`)).toBe(true);
    expect(readdirSync(folder)).toEqual([]);
  });

  test("a folder, a link or a pipe at the lock's place is refused with one message, left as it is, never read", () => {
    const file = join(folder, "c1.lock");
    const fifo = join(folder, "fifo");
    Bun.spawnSync(["mkfifo", fifo]);
    const cases: [string, () => void][] = [
      ["a folder", () => mkdirSync(file)],
      ["a link", () => symlinkSync("/dev/zero", file)],
      ["a link", () => symlinkSync(fifo, file)],
    ];
    for (const [what, plant] of cases) {
      rmSync(file, { recursive: true, force: true });
      plant();
      expect(() => lockConversation(folder, "c1")).toThrow(`${file} is ${what}, not a lock plugboard wrote; remove it, then continue the conversation again`);
    }
    expect(readdirSync(folder).sort()).toEqual(["c1.lock", "fifo"]);
  });

  test("a lock that holds more than a pid, or a pid written otherwise, names no holder", async () => {
    const file = join(folder, "c1.lock");
    for (const text of [`${process.ppid}${" ".repeat(100)}\n`, "0x10\n", "1e1\n"]) {
      writeFileSync(file, text);
      // Fresh and naming no one: left for its writer, who may be writing it now.
      expect(() => lockConversation(folder, "c1")).toThrow("conversation c1 is in use by another plugboard;");
    }
  });

  test("a live holder's lock is refused, naming it: by its pid alone, or with the time it started", () => {
    for (const text of [`${process.ppid}\n`, `${process.ppid} ${startTime(process.ppid)}\n`]) {
      writeFileSync(join(folder, "c1.lock"), text);
      expect(() => lockConversation(folder, "c1")).toThrow(`conversation c1 is in use by another plugboard (pid ${process.ppid})`);
    }
  });

  test("a lock naming this process's own pid, written by an earlier process that had it (without its start time, or with another), is taken over", () => {
    const file = join(folder, "c1.lock");
    for (const text of [`${process.pid}\n`, `${process.pid} ${(startTime(process.pid) ?? 0) + 1}\n`]) {
      writeFileSync(file, text);
      const lock = lockConversation(folder, "c1");
      expect(readFileSync(file, "utf8")).toBe(`${process.pid} ${startTime(process.pid)}\n`);
      lock.release();
      expect(readdirSync(folder)).toEqual([]);
    }
  });

  test("a lock whose pid now belongs to a process that started at another time (the pid given again, as after a reboot) is taken over", () => {
    const file = join(folder, "c1.lock");
    writeFileSync(file, `${process.ppid} ${(startTime(process.ppid) ?? 0) + 1}\n`);
    const lock = lockConversation(folder, "c1");
    expect(readFileSync(file, "utf8")).toBe(`${process.pid} ${startTime(process.pid)}\n`);
    lock.release();
    expect(readdirSync(folder)).toEqual([]);
  });
});

describe("a holder in another PID namespace (two containers sharing one state folder)", () => {
  test("keeps its conversation: its pid means nothing here, the kernel's lock on the file does; once it ends, the lock is taken over", async () => {
    const ready = join(folder, "ready");
    const script = `const { lockConversation } = await import(${JSON.stringify(join(import.meta.dir, "conversation-lock.ts"))});
      lockConversation(${JSON.stringify(folder)}, "c1");
      // Written aside and renamed, so the test never reads the file half written.
      await Bun.write(${JSON.stringify(ready + ".part")}, String(process.pid));
      (await import("node:fs")).renameSync(${JSON.stringify(ready + ".part")}, ${JSON.stringify(ready)});
      await Bun.sleep(60_000);`;
    // Its own PID namespace: it is pid 1 there, and `1 START` names this namespace's init, which started at another time.
    const holder = Bun.spawn(["unshare", "--user", "--map-root-user", "--pid", "--fork", "--kill-child", "--mount-proc", process.execPath, "-e", script], { stdout: "ignore", stderr: "inherit" });
    try {
      await waitFor("the holder in its own PID namespace took the lock", () => Bun.file(ready).exists(), { timeoutMs: 20_000, everyMs: 20 });
      expect(await Bun.file(ready).text()).toBe("1");
      expect(readFileSync(join(folder, "c1.lock"), "utf8")).toStartWith("1 ");
      expect(() => lockConversation(folder, "c1")).toThrow("conversation c1 is in use by another plugboard (pid 1)");
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
    // Killed (its namespace's init, once unshare is gone): it released nothing itself, but the kernel lets go of its lock as it ends, and the pid it names is judged as before.
    const lock = await waitFor(
      "the kernel let go of the killed holder's lock",
      () => {
        try {
          return lockConversation(folder, "c1");
        } catch {
          return undefined;
        }
      },
      { timeoutMs: 10_000, everyMs: 20 },
    );
    expect(readFileSync(join(folder, "c1.lock"), "utf8")).toBe(`${process.pid} ${startTime(process.pid)}\n`);
    lock.release();
  }, 30_000);
});
