/**
 * Test helpers: real temp folders with a config file in them, and fixture plugins
 * (folders under `test/fixtures/`, one behaviour each).
 */
import { expect } from "bun:test";
import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PlugboardError } from "../src/errors.ts";
import { type AppConfig, type BuildAppOptions, buildApp, loadConfig } from "../src/index.ts";

const made: string[] = [];

/** The absolute folder of fixture plugin `name`. */
export function fixture(name: string): string {
  return join(import.meta.dir, "fixtures", name);
}

/** A new empty temp folder (real path), removed by `removeTempDirs`. */
export async function tempDir(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "plugboard-bootstrap-")));
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

/**
 * Loads a config listing `plugins`, written in a fresh temp folder that is also the
 * workspace. Plugins load in this process (`"sandbox": "off"`) unless `sandbox` says
 * otherwise: the plugin hosts have tests of their own.
 */
export async function configWith(plugins: unknown[], dir?: string, sandbox: AppConfig["sandbox"] = "off"): Promise<AppConfig> {
  const folder = dir ?? (await tempDir());
  const path = await writeConfig(folder, { workspace: ".", sandbox, plugins });
  return loadConfig(path, { env: {}, cwd: folder });
}

/** Runs `buildApp`, asserts it built no App, and returns the `PlugboardError` it threw. */
export async function buildFails(config: AppConfig, options?: BuildAppOptions): Promise<PlugboardError> {
  const outcome = await buildApp(config, options).then(
    (app) => ({ app, error: undefined }),
    (error: unknown) => ({ app: undefined, error }),
  );
  expect(outcome.app).toBeUndefined();
  expect(outcome.error).toBeInstanceOf(PlugboardError);
  return outcome.error as PlugboardError;
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
