/**
 * From flags to a running app: find the config, load it with the flag overrides, build the
 * plugins, and connect the model. Everything the commands share before they differ.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type App, buildApp, loadConfig } from "@plugboard/bootstrap";
import type { Logger } from "@plugboard/core";
import type { Flags } from "./args.ts";
import type { Io } from "./io.ts";

/** The CLI's own package folder: plugins it ships resolve from here when the config's folder has none. */
export const CLI_FOLDER = fileURLToPath(new URL("..", import.meta.url));
/** The config the CLI ships with: the five first-party plugins. */
export const SHIPPED_CONFIG = join(CLI_FOLDER, "plugboard.config.json");

/** The config file names looked for in the current folder, in order. */
export const LOCAL_CONFIG_NAMES = ["plugboard.config.json", "plugboard.config.jsonc"] as const;

/** `./plugboard.config.json` or `./plugboard.config.jsonc` in `cwd`, when there is one. */
export function localConfig(cwd: string): string | undefined {
  return LOCAL_CONFIG_NAMES.map((name) => join(cwd, name)).find((path) => existsSync(path));
}

/** `--config` (relative to the user's folder), else `./plugboard.config.json` or `.jsonc`, else the shipped one. */
export function configPath(flag: string | undefined, cwd: string): string {
  if (flag !== undefined) return resolve(cwd, flag);
  return localConfig(cwd) ?? SHIPPED_CONFIG;
}

/**
 * Loads the config and builds the app. With `announceWorkspace`, says on stderr when the
 * workspace is the current folder only because nothing else was given.
 */
export async function loadApp(flags: Flags, io: Io, options: { announceWorkspace: boolean }): Promise<App> {
  const config = await loadConfig(configPath(flags.config, io.cwd), {
    overrides: {
      ...(flags.workspace !== undefined ? { workspace: resolve(io.cwd, flags.workspace) } : {}),
      ...(flags.model !== undefined ? { model: flags.model } : {}),
      ...(flags.baseURL !== undefined ? { baseURL: flags.baseURL } : {}),
      ...(flags.maxSteps !== undefined ? { maxSteps: flags.maxSteps } : {}),
    },
    env: io.env,
    cwd: io.cwd,
  });
  const app = await buildApp(config, { logger: stderrLogger(io), appFolder: CLI_FOLDER });
  if (options.announceWorkspace && config.workspaceSource === "default") {
    io.note(`workspace: ${app.workspace.root} (the current folder; --workspace DIR picks another)`);
  }
  return app;
}

function stderrLogger(io: Io): Logger {
  return {
    debug() {},
    info() {},
    warn: (message) => io.note(`warning: ${message}`),
  };
}
