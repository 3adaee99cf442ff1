/** Test helpers: real temp folders, removed after each test, and config files written in them. */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { PlugboardError } from "@plugboard/errors";
import { removeTempDirs, tempDir as tempDirWith } from "@plugboard/test-helpers";
import { loadConfig } from "../src/config.ts";

export { removeTempDirs };

/** A new empty temp folder (real path), removed by `removeTempDirs`. */
export function tempDir(): Promise<string> {
  return tempDirWith("plugboard-config-");
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
