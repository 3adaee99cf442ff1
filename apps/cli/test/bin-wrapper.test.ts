/** The `plugboard` command npm installs: it runs the bundle with the Bun of its own dependency or the one on PATH, or says how to install Bun. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmod, copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { buildCli } from "../scripts/build.ts";

const SOURCE = fileURLToPath(new URL("../bin/plugboard", import.meta.url));
/** The package as npm installs it: the wrapper in bin/, the bundle in dist/. */
let installed = "";
let WRAPPER = "";
beforeAll(async () => {
  installed = await mkdtemp(join(tmpdir(), "plugboard-installed-"));
  WRAPPER = join(installed, "bin/plugboard");
  await mkdir(dirname(WRAPPER));
  await copyFile(SOURCE, WRAPPER);
  await chmod(WRAPPER, 0o755);
  await buildCli(join(installed, "dist"));
}, 120_000);
afterAll(() => rm(installed, { recursive: true, force: true }));

test("without Bun on PATH: one message saying what to install, exit 2", async () => {
  const empty = await mkdtemp(join(tmpdir(), "plugboard-no-bun-"));
  try {
    const run = Bun.spawnSync(["/bin/sh", WRAPPER, "--version"], { env: { PATH: empty } });
    expect(run.exitCode).toBe(2);
    expect(run.stdout.toString()).toBe("");
    expect(run.stderr.toString()).toBe(
      "plugboard: Bun is not installed, or not on PATH: plugboard runs on Bun (1.4.5 or later).\nInstall it with `npm install -g bun@1.4.5` (or from https://bun.sh), then run plugboard again.\n",
    );
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
});

test("with Bun on PATH, through the link npm makes in its bin folder: the bundled CLI runs", async () => {
  const folder = await mkdtemp(join(tmpdir(), "plugboard-bin-"));
  try {
    await symlink(WRAPPER, join(folder, "plugboard"));
    const run = Bun.spawnSync([join(folder, "plugboard"), "--version"], { env: { PATH: `${dirname(process.execPath)}:/usr/bin:/bin` } });
    expect(run.stderr.toString()).toBe("");
    expect(run.stdout.toString()).toStartWith("plugboard ");
    expect(run.exitCode).toBe(0);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
});

test("with the bun package beside it (the CLI tarball's dependency): that Bun runs the CLI, not the one on PATH", async () => {
  const folder = await mkdtemp(join(tmpdir(), "plugboard-own-bun-"));
  const own = join(installed, "node_modules/bun/bin/bun.exe");
  try {
    // On PATH, a bun that only says it was the wrong one.
    await writeFile(join(folder, "bun"), "#!/bin/sh\necho 'the bun on PATH ran' >&2\nexit 1\n");
    await chmod(join(folder, "bun"), 0o755);
    await mkdir(dirname(own), { recursive: true });
    await symlink(process.execPath, own);
    const run = Bun.spawnSync([WRAPPER, "--version"], { env: { PATH: `${folder}:/usr/bin:/bin` } });
    expect(run.stderr.toString()).toBe("");
    expect(run.stdout.toString()).toStartWith("plugboard ");
    expect(run.exitCode).toBe(0);
  } finally {
    await rm(join(installed, "node_modules"), { recursive: true, force: true });
    await rm(folder, { recursive: true, force: true });
  }
});
