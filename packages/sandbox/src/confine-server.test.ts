/**
 * A stdio server's confined command line, run for real: its arguments never widen what it
 * sees, a script in the workspace brings only itself, `uvx` keeps the `uv` it runs, and a
 * server without `network` has npm and uv told that they are offline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { detectMechanism } from "./mechanism.ts";
import type { Permission } from "@plugboard/core";
import { confineServer } from "./confine-server.ts";
import { isWithin } from "./view/view.ts";

const mechanism = detectMechanism();
let dir = "";
let workspace = "";

/** Reads the workspace's notes and lists the workspace, from wherever it lies. */
const SCRIPT = (workspace: string) => `#!/usr/bin/env bun
const fs = require("node:fs");
try { console.log("notes:", fs.readFileSync(${JSON.stringify(join(workspace, "notes.txt"))}, "utf8").trim()); } catch (error) { console.log("notes:", error.code); }
console.log("workspace:", fs.readdirSync(${JSON.stringify(workspace)}).sort().join(","));
`;

beforeAll(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "plugboard-confine-server-")));
  workspace = join(dir, "workspace");
  mkdirSync(join(workspace, "bin"), { recursive: true });
  writeFileSync(join(workspace, "package.json"), '{ "name": "project" }\n');
  writeFileSync(join(workspace, "notes.txt"), "private notes\n");
  for (const script of [join(workspace, "bin/server.js"), join(dir, "elsewhere/server.js")]) {
    mkdirSync(join(script, ".."), { recursive: true });
    writeFileSync(script, SCRIPT(workspace));
    chmodSync(script, 0o755);
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What confineServer warned about. */
const warnings: string[] = [];

async function run(
  argv: string[],
  grants: Permission[],
  env: Record<string, string> = {},
  cacheRoot = join(dir, "cache"),
): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!mechanism.available) throw new Error("no sandbox");
  const warn = (message: string) => warnings.push(message);
  const server = { name: "test", grants, workspace, configPath: join(workspace, "plugboard.config.json"), protect: [], cacheRoot, warn };
  const launch = confineServer({ argv, env: { PATH: process.env.PATH ?? "", ...env }, cwd: workspace }, server, mechanism);
  const child = Bun.spawn([...launch.argv], { env: { ...launch.env }, cwd: launch.cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, stdout, stderr };
}

describe.skipIf(!mechanism.available)("a confined stdio server", () => {
  test("a cache folder that cannot be made is said once, and the server starts with an empty HOME", async () => {
    const blocker = join(dir, "a-file");
    writeFileSync(blocker, "");
    warnings.length = 0;
    const started = await run(["sh", "-c", 'echo "home: $(ls -A "$HOME")"'], ["process.spawn"], {}, blocker);
    // Nothing of the person's home but, when Bun itself is installed there (~/.bun), the way to it.
    const bun = realpathSync(process.execPath);
    const shown = isWithin(bun, homedir()) ? bun.slice(homedir().length + 1).split("/")[0] : "";
    expect(started).toMatchObject({ code: 0, stdout: `home: ${shown}\n` });
    expect(warnings).toEqual([expect.stringContaining(`MCP server test: its cache folder cannot be made (ENOTDIR`)]);
  });

  test("a script in the workspace as the command brings itself, not the workspace around it", async () => {
    const alone = await run(["./bin/server.js"], []);
    expect(alone).toMatchObject({ code: 0, stdout: "notes: ENOENT\nworkspace: bin\n" });
    const reading = await run(["./bin/server.js"], ["fs.read"]);
    expect(reading.stdout).toBe("notes: private notes\nworkspace: bin,notes.txt,package.json\n");
  });

  test("a script outside the workspace as the command runs, with its own folder", async () => {
    expect(await run([join(dir, "elsewhere/server.js")], [])).toMatchObject({ code: 0, stdout: "notes: ENOENT\nworkspace: \n" });
  });

  test("a script given as an argument is not seen, whatever the grants", async () => {
    const result = await run(["bun", join(dir, "elsewhere/server.js")], ["fs.read", "fs.write", "process.spawn", "network"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`Module not found "${join(dir, "elsewhere/server.js")}"`);
  });

  test("uvx can run the uv beside it, which is not on a system path", async () => {
    // A stand-in for uvx that executes the program it is given: the real one runs its sibling `uv`.
    const bin = join(dir, "uv-bin");
    mkdirSync(bin, { recursive: true });
    copyFileSync(realpathSync("/usr/bin/env"), join(bin, "uvx"));
    copyFileSync(realpathSync("/usr/bin/printenv"), join(bin, "uv"));
    chmodSync(join(bin, "uvx"), 0o755);
    chmodSync(join(bin, "uv"), 0o755);
    expect(await run([join(bin, "uvx"), join(bin, "uv"), "HOME"], [])).toMatchObject({ code: 0 });
  });

  test("without network, npm and uv are told they are offline; the entry's env wins", async () => {
    const offline = await run(["printenv", "npm_config_offline", "UV_OFFLINE"], []);
    expect(offline).toMatchObject({ code: 0, stdout: "true\n1\n" });
    const online = await run(["printenv", "npm_config_offline", "UV_OFFLINE"], ["network"]);
    expect(online.stdout).toBe("");
    const chosen = await run(["printenv", "npm_config_offline"], [], { npm_config_offline: "false" });
    expect(chosen.stdout).toBe("false\n");
  });
});
