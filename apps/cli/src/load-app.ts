/**
 * From flags to a running app: find the config, load it with the flag overrides, build the
 * plugins, and connect the model. Everything the commands share before they differ.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type App, buildApp, loadConfig } from "@plugboard/bootstrap";
import type { Logger } from "@plugboard/core";
import { createModelClient } from "@plugboard/demo-model";
import type OpenAI from "openai";
import type { Flags } from "./args.ts";
import type { Io } from "./io.ts";
import type { Endpoint } from "./model-errors.ts";

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

/** A model client for the app, and where it sends requests. */
export interface ConnectedModel {
  readonly client: OpenAI;
  readonly demo: boolean;
  readonly endpoint: Endpoint;
}

/** Creates the model client; says on stderr when it is the offline demo model. */
export function connectModel(app: App, io: Io): ConnectedModel {
  const { client, demo } = createModelClient(app.config.model);
  if (demo) {
    io.note("no MODEL_API_KEY or BASE_URL is set, so an offline demo model answers (it understands a few fixed requests).");
    io.note("To use a real model, set MODEL_API_KEY (OpenAI), or BASE_URL / --base-url URL for any OpenAI-compatible endpoint.");
  }
  return { client, demo, endpoint: { baseURL: client.baseURL, model: app.config.model.name } };
}

function stderrLogger(io: Io): Logger {
  return {
    debug() {},
    info() {},
    warn: (message) => io.note(`warning: ${message}`),
  };
}
