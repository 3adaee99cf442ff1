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

/** The config the CLI ships with: the five first-party plugins. */
export const SHIPPED_CONFIG = fileURLToPath(new URL("../plugboard.config.json", import.meta.url));

/** `--config` (relative to the user's folder), else `./plugboard.config.json`, else the shipped one. */
export function configPath(flag: string | undefined, cwd: string): string {
  if (flag !== undefined) return resolve(cwd, flag);
  const local = join(cwd, "plugboard.config.json");
  return existsSync(local) ? local : SHIPPED_CONFIG;
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
  const app = await buildApp(config, { logger: stderrLogger(io) });
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
