/**
 * Where docs-run.test.ts runs the pages' blocks: a fresh project folder per block with an
 * empty home and XDG folders and the CLI on PATH as `plugboard`, a shell that runs a command
 * as a terminal would show it, links to the workspace's packages, and the repository's tsc.
 */
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect } from "bun:test";
import { cleanEnv, type Finished, finished, MAIN } from "./helpers.ts";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const TSC = join(ROOT, "node_modules/.bin/tsc");

/** The folder of this run's projects, the `plugboard` on their PATH and the cache they share (`removeProjects` deletes it). */
const SCRATCH = realpathSync(mkdtempSync(join(tmpdir(), "plugboard-docs-run-")));
const BIN = join(SCRATCH, "bin");
const CACHE = join(SCRATCH, "cache");
mkdirSync(BIN);
/** Deletes every project folder, for the test file's `afterAll`. */
export const removeProjects = () => rm(SCRATCH, { recursive: true, force: true });
writeFileSync(join(BIN, "plugboard"), `#!/bin/sh\nexec bun '${MAIN}' "$@"\n`, { mode: 0o755 });

/** A fresh project folder with `files`, and an empty home beside it. */
export async function project(files: Record<string, string> = {}): Promise<{ dir: string; env: Record<string, string> }> {
  const base = await mkdtemp(join(SCRATCH, "block-"));
  const dir = join(base, "project");
  const home = join(base, "home");
  await mkdir(dir);
  await mkdir(home);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  const env = cleanEnv({
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_STATE_HOME: join(home, ".local/state"),
    XDG_CACHE_HOME: CACHE,
    PATH: `${BIN}:${process.env.PATH ?? "/usr/bin:/bin"}`,
    PLUGBOARD_BIN: join(BIN, "plugboard"),
    NO_COLOR: "1",
  });
  return { dir, env };
}

/** `bash -c COMMAND` to its end, stderr into stdout as a terminal shows them. */
export function shell(command: string, cwd: string, env: Record<string, string>): Promise<Finished> {
  return finished(Bun.spawn(["bash", "-c", `exec 2>&1\n${command}`], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" }));
}

/** The lines a terminal shows for `output`: escape sequences taken out, and of each line what its last carriage return left. */
export function screenLines(output: string): string[] {
  return Bun.stripANSI(output)
    .split("\n")
    .map((line) => line.replace(/\r+$/, "").split("\r").at(-1)?.trimEnd() ?? "");
}

/** Links `node_modules/NAME` in `folder` to the workspace's package at `links[NAME]`, as an install of them would. */
export async function linkModules(folder: string, links: Record<string, string>): Promise<void> {
  for (const [name, target] of Object.entries(links)) {
    await mkdir(dirname(join(folder, "node_modules", name)), { recursive: true });
    await symlink(join(ROOT, target), join(folder, "node_modules", name));
  }
}

/** `tsc -p .` in `folder`: its output, empty when it typechecks. */
export async function typecheck(folder: string): Promise<string> {
  const checked = await finished(Bun.spawn([TSC, "-p", "."], { cwd: folder, stdout: "pipe", stderr: "pipe" }));
  return `${checked.stdout}${checked.stderr}`;
}

/** Starts `command` (a web chat) in its own process group, fetches the page it says it serves, and stops it. */
export async function servePage(command: string, cwd: string, env: Record<string, string>): Promise<void> {
  const child = Bun.spawn(["bash", "-c", `exec ${command}`], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: true });
  try {
    let text = "";
    const decoder = new TextDecoder();
    for await (const chunk of child.stderr) {
      text += decoder.decode(chunk, { stream: true });
      const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      if (url === undefined) continue;
      const page = await fetch(url.replace("0.0.0.0", "127.0.0.1"));
      expect({ command, status: page.status }).toEqual({ command, status: 200 });
      return;
    }
    throw new Error(`${command} ended before it listened:\n${text}`);
  } finally {
    process.kill(-child.pid, "SIGTERM");
    await child.exited;
  }
}

