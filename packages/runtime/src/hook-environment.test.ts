import { expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hookEnvironment, hookPlace } from "./hook-environment.ts";

test("what runtimes read as code is left out; the rest is kept", () => {
  const env = {
    PATH: "/usr/bin",
    HOME: "/home/me",
    LANG: "C.UTF-8",
    NODE_OPTIONS: "--require ./x.js",
    NODE_PATH: "/tmp/x",
    BUN_OPTIONS: "--preload ./x.ts",
    BUN_CONFIG_REGISTRY: "http://localhost",
    PYTHONPATH: "/tmp/x",
    PYTHONSTARTUP: "/tmp/x.py",
    PYTHONUNBUFFERED: "1",
    BASH_ENV: "/tmp/x.sh",
    "BASH_FUNC_ls%%": "() { touch /tmp/x; }",
    LD_PRELOAD: "/tmp/x.so",
    UNSET: undefined,
  };
  expect(hookEnvironment(env)).toEqual({ PATH: "/usr/bin", HOME: "/home/me", LANG: "C.UTF-8", PYTHONUNBUFFERED: "1" });
});

test("a hook runs in its folder; one in the workspace's top folder runs in an empty folder of its own, without Python's script path", async () => {
  const workspace = await mkdtemp(join(tmpdir(), "plugboard-place-"));
  try {
    await mkdir(join(workspace, "hooks"));
    const own = await hookPlace(join(workspace, "hooks"), workspace, { PATH: "/bin", BUN_OPTIONS: "--preload x" });
    expect({ cwd: own.cwd, env: own.env }).toEqual({ cwd: join(workspace, "hooks"), env: { PATH: "/bin" } });
    await own.release();
    expect(existsSync(join(workspace, "hooks"))).toBe(true);

    const top = await hookPlace(workspace, workspace, { PATH: "/bin" });
    expect(top.cwd).not.toBe(workspace);
    expect(readdirSync(top.cwd)).toEqual([]);
    expect(top.env).toEqual({ PATH: "/bin", PYTHONSAFEPATH: "1" });
    await top.release();
    expect(existsSync(top.cwd)).toBe(false);
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
});
