/**
 * The view, attacked with real processes: each door the second edition left open is tried
 * confined (refused) and unconfined (the same attempt with plain `bun`, which succeeds), so
 * every test fails if the view, the filter or the namespaces do nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dlopen } from "bun:ffi";
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import type { Permission } from "@plugboard/core";
import { terminalOf, waitFor } from "@plugboard/test-helpers";
import type { ProtectedPath } from "./build-view.ts";
import { attempt as attemptIn, type Extra, PACKAGE } from "../../test/attempt.ts";
import { codeClosure } from "./package-closure.ts";

let dir = "";
let workspace = "";

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-view-"));
  workspace = join(dir, "workspace");
  mkdirSync(workspace);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The attempt confined with `grants` (and `extra` options) in this file's workspace, or unconfined with `"off"`. */
const attempt = (grants: readonly Permission[] | "off", args: readonly string[], extra: Extra = {}) => attemptIn(workspace, grants, args, extra);

const ALL: Permission[] = ["fs.read", "fs.write", "process.spawn"];

describe("local doors without network", () => {
  test("a pathname UNIX socket in a 0700 folder is unreachable, even when the socket lies in the workspace", async () => {
    const hidden = join(dir, "private-0700");
    mkdirSync(hidden, { mode: 0o700 });
    chmodSync(hidden, 0o700);
    for (const path of [join(hidden, "daemon.sock"), join(workspace, "daemon.sock")]) {
      using server = Bun.listen({ unix: path, socket: { data() {} } });
      expect(server.unix).toBe(path);
      expect(await attempt([], ["connect-unix", path])).toStartWith("refused:");
      expect(await attempt(ALL, ["connect-unix", path])).toStartWith("refused:");
      expect(await attempt("off", ["connect-unix", path])).toBe(`ok: connected to ${path}`);
    }
  });

  test("no socket of any family can be created; with network one can", async () => {
    for (const family of ["socket-unix", "socket-inet6"]) {
      expect(await attempt(ALL, ["syscall", family])).toBe("ok: errno 1");
      expect(await attempt([...ALL, "network"], ["syscall", family])).toBe("ok: returned");
      expect(await attempt("off", ["syscall", family])).toBe("ok: returned");
    }
  });

  test("another terminal cannot be opened: /dev holds only null, zero, full, random, urandom and links", async () => {
    // A terminal of the person's: `script` holds a pseudo-terminal open while it sleeps.
    const holder = Bun.spawn(["script", "-q", "-c", "sleep 30", "/dev/null"], { stdin: "pipe", stdout: "ignore", stderr: "ignore" });
    try {
      const pts = await waitFor("script opened a pseudo-terminal", () => terminalOf(holder.pid));
      expect(await attempt("off", ["open-tty", pts])).toBe(`ok: opened ${pts}`);
      expect(await attempt(ALL, ["open-tty", pts])).toStartWith("refused: ENOENT");
      expect(await attempt(ALL, ["open-tty", "/dev/tty"])).toStartWith("refused: ENOENT");
      expect(await attempt(ALL, ["list", "/dev"])).toBe("ok: fd full null random shm stderr stdin stdout urandom zero");
    } finally {
      holder.kill("SIGKILL");
      await holder.exited;
    }
  });

  test("TIOCSTI is refused by the filter", async () => {
    expect(await attempt(ALL, ["syscall", "tiocsti"])).toBe("ok: errno 1");
    // Unconfined, stdin (a pipe) is no terminal: ENOTTY, not a refusal.
    expect(await attempt("off", ["syscall", "tiocsti"])).toBe("ok: errno 25");
  });
});

describe("kernel objects the file rights do not cover", () => {
  // errno 1 is EPERM, 38 ENOSYS (clone3, so that libc uses clone, whose flags the filter reads).
  const families: [string, string][] = [
    ["mount", "ok: errno 1"],
    ["unshare-user", "ok: errno 1"],
    ["clone3", "ok: errno 38"],
    ["setns", "ok: errno 1"],
    ["ptrace", "ok: errno 1"],
    ["io_uring_setup", "ok: errno 1"],
    ["bpf", "ok: errno 1"],
    ["userfaultfd", "ok: errno 1"],
    ["perf_event_open", "ok: errno 1"],
    ["keyctl", "ok: errno 1"],
  ];
  for (const [family, refused] of families) {
    test(`${family} is refused confined, and reaches the kernel unconfined`, async () => {
      expect(await attempt(ALL, ["syscall", family])).toBe(refused);
      expect(await attempt("off", ["syscall", family])).not.toBe(refused);
    });
  }
});

describe("private folders", () => {
  test("/tmp, /var/tmp, /dev/shm, /run and HOME are private and empty; nothing written there reaches the disk", async () => {
    const marker = `plugboard-view-${process.pid}`;
    writeFileSync(join(tmpdir(), marker), "outside\n");
    try {
      for (const folder of ["/var/tmp", "/dev/shm", "/run"]) expect(await attempt(ALL, ["list", folder])).toBe("ok:");
      // /tmp holds only the way to the workspace (and to this package's code, when it lies under /tmp too).
      const listed = await attempt(ALL, ["list", "/tmp"]);
      expect(listed.split(" ")).toContain(dir.slice(5));
      expect(listed).not.toContain(marker);
      // HOME holds nothing of the person's, but the way to Bun itself when it is installed there (~/.bun).
      const bun = realpathSync(process.execPath);
      const shown = bun.startsWith(`${homedir()}/`) ? ` ${bun.slice(homedir().length + 1).split("/")[0]}` : "";
      expect(await attempt(ALL, ["list", homedir()])).toBe(`ok:${shown}`);
      expect(await attempt(ALL, ["write", join("/tmp", `${marker}-new`)])).toBe(`ok: wrote /tmp/${marker}-new`);
      expect(existsSync(join("/tmp", `${marker}-new`))).toBe(false);
      expect((await attempt("off", ["list", tmpdir()])).includes(marker)).toBe(true);
    } finally {
      await rm(join(tmpdir(), marker), { force: true });
    }
  });

  test("a persistent HOME is the given folder, writable, kept after the process", async () => {
    const cache = join(dir, "server-cache");
    mkdirSync(cache);
    expect(await attempt([], ["write", join(homedir(), "kept.txt")], { home: cache })).toBe(`ok: wrote ${join(homedir(), "kept.txt")}`);
    expect(readFileSync(join(cache, "kept.txt"), "utf8")).toBe("written by a confined process\n");
  });
});

describe("protected paths inside a writable workspace", () => {
  test("each is read-only, and cannot be got round by renaming or removing its folder", async () => {
    const git = join(workspace, ".git");
    mkdirSync(join(git, "hooks"), { recursive: true });
    writeFileSync(join(git, "config"), "[core]\n");
    mkdirSync(join(workspace, "app"));
    writeFileSync(join(workspace, "app", "plugboard.config.json"), "{}\n");
    const protect: ProtectedPath[] = [
      { path: join(git, "config"), rule: ".git/config" },
      { path: join(git, "hooks"), rule: ".git/hooks" },
      { path: join(workspace, "app", "plugboard.config.json"), rule: "the config file" },
    ];
    const extra = { protect };
    for (const target of [join(git, "config"), join(git, "hooks", "pre-commit"), join(workspace, "app", "plugboard.config.json")]) {
      expect(await attempt(ALL, ["write", target], extra)).toStartWith("refused: EROFS");
      expect(await attempt("off", ["write", target])).toBe(`ok: wrote ${target}`);
    }
    writeFileSync(join(git, "config"), "[core]\n");
    await rm(join(git, "hooks", "pre-commit"));
    for (const [from, to] of [[git, join(workspace, ".git-moved")], [join(workspace, "app"), join(workspace, "app-moved")]]) {
      expect(await attempt(ALL, ["rename", `${from}:${to}`], extra)).toStartWith("refused: EBUSY");
    }
    // Elsewhere the workspace stays writable, .git included (commits still work).
    expect(await attempt(ALL, ["write", join(git, "HEAD")], extra)).toBe(`ok: wrote ${join(git, "HEAD")}`);
    expect(await attempt(ALL, ["write", join(workspace, "notes.txt")], extra)).toBe(`ok: wrote ${join(workspace, "notes.txt")}`);
    expect(readFileSync(join(git, "config"), "utf8")).toBe("[core]\n");
  });
});

describe("the view's code", () => {
  test("a link planted in a workspace node_modules leads nowhere: `/` there is the view's root", async () => {
    const secret = join(dir, "secret.txt");
    writeFileSync(secret, "secret\n");
    const plugin = join(workspace, "node_modules", "plugin");
    mkdirSync(plugin, { recursive: true });
    writeFileSync(join(plugin, "package.json"), JSON.stringify({ name: "plugin", dependencies: { x: "1" } }));
    symlinkSync("/", join(workspace, "node_modules", ".x"));
    symlinkSync(dir, join(workspace, "node_modules", "x"));
    const closure = codeClosure([plugin], [workspace]);
    expect(closure.refused).toEqual([{ path: join(workspace, "node_modules", "x"), target: dir }]);
    expect(closure.folders).toEqual([join(workspace, "node_modules")]);
    const through = join(workspace, "node_modules", ".x", secret.slice(1));
    expect(await attempt([], ["read", through], { code: [PACKAGE, plugin] })).toStartWith("refused: ENOENT");
    expect(await attempt([], ["read", join(workspace, "node_modules", "x", "secret.txt")], { code: [PACKAGE, plugin] })).toStartWith("refused: ENOENT");
    expect(await attempt("off", ["read", through])).toBe("ok: secret");
  });
});

describe("System V IPC", () => {
  test("a shared memory segment of a process outside is out of reach: the sandbox has an IPC namespace of its own", async () => {
    const libc = dlopen("libc.so.6", {
      shmget: { args: ["i32", "u64", "i32"], returns: "i32" },
      shmctl: { args: ["i32", "i32", "ptr"], returns: "i32" },
    }).symbols;
    const key = 0x504c0000 + (process.pid % 0xffff);
    const IPC_CREAT = 0o1000;
    const IPC_RMID = 0;
    const id = libc.shmget(key, 4096, IPC_CREAT | 0o600);
    expect(id).toBeGreaterThanOrEqual(0);
    try {
      expect(await attempt("off", ["shm-find", String(key)])).toBe("ok: found the segment");
      expect(await attempt(ALL, ["shm-find", String(key)])).toBe("refused: shmget: errno 2");
    } finally {
      libc.shmctl(id, IPC_RMID, null);
    }
  });
});
