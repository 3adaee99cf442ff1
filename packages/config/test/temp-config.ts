/** Test helpers: real temp folders, removed after each test, and config files written in them. */
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config.ts";
import { PlugboardError } from "../src/errors.ts";

const made: string[] = [];

/** A new empty temp folder (real path), removed by `removeTempDirs`. */
export async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "plugboard-config-")));
  made.push(dir);
  return dir;
}

/** Removes every folder `tempDir` made; call it in `afterEach`. */
export async function removeTempDirs(): Promise<void> {
  await Promise.all(made.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
}

/** Writes `config` as JSON to `dir/name` and returns the file's path. */
export async function writeConfig(dir: string, config: unknown, name = "plugboard.json"): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof config === "string" ? config : JSON.stringify(config, null, 2));
  return path;
}

/** Runs `loadConfig` on `path` and returns the `PlugboardError` it threw. */
export async function loadFails(path: string, options?: Parameters<typeof loadConfig>[1]): Promise<PlugboardError> {
  try {
    await loadConfig(path, options);
  } catch (error) {
    if (error instanceof PlugboardError) return error;
    throw error;
  }
  throw new Error(`expected loadConfig(${path}) to fail`);
}
