import { expect, test } from "bun:test";
import { hookEnvironment } from "./hook-environment.ts";

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
