import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanEnv, type Finished, STACK_FRAME } from "./helpers.ts";

/**
 * A copy of the CLI's sources beside the real ones (so that its packages still resolve
 * through apps/cli/node_modules), with one command's module missing or broken.
 */
let copy: string;
let cwd: string;

beforeAll(async () => {
  copy = await mkdtemp(join(import.meta.dir, ".incomplete-"));
  cwd = await mkdtemp(join(tmpdir(), "plugboard-incomplete-"));
  // Without the tests beside the sources: a test run going on meanwhile must not find them twice.
  await cp(join(import.meta.dir, "../src"), join(copy, "src"), { recursive: true, filter: (path) => !path.endsWith(".test.ts") });
  await rm(join(copy, "src/commands/tools.ts"));
  await writeFile(join(copy, "src/commands/plugins.ts"), 'throw new Error("a bug while loading");\n');
});

afterAll(async () => {
  await rm(copy, { recursive: true, force: true });
  await rm(cwd, { recursive: true, force: true });
});

async function run(args: readonly string[]): Promise<Finished> {
  const child = Bun.spawn(["bun", join(copy, "src/main.ts"), ...args], { cwd, env: cleanEnv(), stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

describe("a CLI whose files are not all installed", () => {
  test("a missing module is one message naming what was loading and the fix, exit 2, no stack", async () => {
    const result = await run(["tools"]);
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        `plugboard: Could not load the plugboard tools command: Cannot find module './tools.ts' imported from ${join(copy, "src/commands/tools.command.ts")}.\n` +
        "Reinstall plugboard (npm install -g with the CLI's tarball, or bun install --frozen-lockfile in a clone) so that all its files and dependencies are installed.\n",
    });
  });

  test("a module that is there but throws while loading is a bug of ours: it crashes with its stack", async () => {
    const result = await run(["plugins"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("a bug while loading");
    expect(result.stderr).toContain(STACK_FRAME);
  });
});
