/**
 * Test helpers: real temp folders with a config file in them (the config package's
 * helpers), and fixture plugins (folders under `test/fixtures/`, one behaviour each).
 */
import { expect } from "bun:test";
import { join } from "node:path";
import { PlugboardError } from "@plugboard/errors";
import { tempDir, writeConfig } from "../../config/test/temp-config.ts";
import { type AppConfig, type BuildAppOptions, buildApp, loadConfig } from "../src/index.ts";

export { loadFails, removeTempDirs, tempDir, writeConfig } from "../../config/test/temp-config.ts";

/** The absolute folder of fixture plugin `name`. */
export function fixture(name: string): string {
  return join(import.meta.dir, "fixtures", name);
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
