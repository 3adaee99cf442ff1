/**
 * From flags to a running app through bootstrap's `startApp`: the CLI adds only where its
 * config is looked for, its notes on stderr, and the `--help` hint on a bad flag.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import {
  type AppConfig,
  FlagError,
  type HostPrograms,
  type ModelClient,
  openWorkspace,
  PlugboardError,
  plantedRecordFile,
  refusePlanted,
  shippedPrograms,
  type StartAppOptions,
  type StartedApp,
  startApp,
  startConfig,
} from "@plugboard/bootstrap";
import type { Logger, Workspace } from "@plugboard/core";
import { type ParsedArgs, UsageError } from "./args.ts";
import type { Io } from "./io.ts";
import { reportStrayErrors } from "./stray-errors.ts";

/** The CLI's own package folder: plugins it ships resolve from here when the config's folder has none. */
export const CLI_FOLDER = resolve(import.meta.dir, "..");

/**
 * The programs confined hosts start with, when they are shipped beside this code: the bundle
 * (`dist/`) has them, built with it (scripts/build.ts); the sources do not, and their hosts
 * start from the bundles kept in the listing cache's folder.
 */
export function shippedHostPrograms(): { hostPrograms?: HostPrograms } {
  const programs = shippedPrograms(import.meta.dir);
  return programs === undefined ? {} : { hostPrograms: programs };
}

/** The config the CLI ships with: the five first-party plugins. */
export const SHIPPED_CONFIG = join(CLI_FOLDER, "plugboard.config.json");

/** The config file names looked for in the current folder, in order. */
export const LOCAL_CONFIG_NAMES = ["plugboard.config.json", "plugboard.config.jsonc"] as const;

/**
 * `./plugboard.config.json` or `./plugboard.config.jsonc` in `cwd`, when there is one; one
 * that appeared while plugins could write the folder is refused until trusted (see
 * `refusePlanted`), as a plugin may have put it there.
 */
export function localConfig(cwd: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const found = LOCAL_CONFIG_NAMES.map((name) => join(cwd, name)).filter((path) => existsSync(path));
  // Two would make one of them (perhaps one a plugin wrote) silently win: say so instead.
  if (found.length > 1) {
    throw new PlugboardError(
      "USAGE",
      `Both ${found.join(" and ")} exist, so it is not clear which config to use.\nRemove the one you do not use, or name one with --config FILE.`,
    );
  }
  if (found[0] !== undefined) refusePlanted(plantedRecordFile(env), found[0], "the config in the current folder");
  return found[0];
}

/** The config used without `--config`: `./plugboard.config.json` or `.jsonc`, else the shipped one. */
export function defaultConfig(cwd: string, env: Readonly<Record<string, string | undefined>>): string {
  return localConfig(cwd, env) ?? SHIPPED_CONFIG;
}

/** Options of `loadApp`: what the command asks of the app (`freshHosts`, `warm`, `elicit`, `changedTools`: see `startApp`), passed on whole. */
export interface LoadAppOptions extends Pick<StartAppOptions, "freshHosts" | "warm" | "elicit" | "changedTools"> {
  /** Say on stderr when the workspace is the current folder only because nothing else was given. */
  readonly announceWorkspace: boolean;
  /** Also connect the model, saying on stderr which model at which endpoint, or that it is the offline demo model. */
  readonly model?: boolean;
}

/** Loads the config with the command's flags and builds the app (and its model client, when asked for). */
export async function loadApp(parsed: ParsedArgs, io: Io, options: LoadAppOptions & { model: true }): Promise<StartedApp & { model: ModelClient }>;
export async function loadApp(parsed: ParsedArgs, io: Io, options: LoadAppOptions): Promise<StartedApp>;
export async function loadApp(parsed: ParsedArgs, io: Io, options: LoadAppOptions): Promise<StartedApp> {
  const { announceWorkspace, ...asked } = options;
  const app = await startApp({ ...asked, ...configOptions(parsed, io), logger: stderrLogger(io), appFolder: CLI_FOLDER, ...shippedHostPrograms() }).catch(usageError(parsed));
  opened.add(app);
  reportStrayErrors(app, io, parsed.flags.json && parsed.command === "run");
  if (announceWorkspace && app.config.workspaceSource === "default") {
    io.note(`workspace: ${app.workspace.root} (the current folder; --workspace DIR picks another)`);
  }
  if (app.model?.demo) {
    io.note("no MODEL_API_KEY or BASE_URL is set, so an offline demo model answers (it understands a few fixed requests).");
    io.note("To use a real model, set MODEL_API_KEY (OpenAI), or BASE_URL / --base-url URL for any OpenAI-compatible endpoint.");
  } else if (app.model) {
    // Which model and where, once per session (never the key), so a wrong one is seen before the first answer.
    io.note(`model ${app.model.endpoint.model} at ${app.model.endpoint.baseURL} (dialect ${app.config.model.dialect})`);
  }
  return app;
}

/**
 * Loads the config with the command's flags and opens its workspace, without building the app
 * (no plugin is loaded, no server started): for commands that only read what is kept for a
 * config and workspace. The config's errors are `loadApp`'s; a plugin that cannot load is not one.
 */
export async function loadConfigOnly(parsed: ParsedArgs, io: Io): Promise<{ config: AppConfig; workspace: Workspace }> {
  const config = await startConfig(configOptions(parsed, io)).catch(usageError(parsed));
  return { config, workspace: await openWorkspace(config) };
}

/** Where the config is and the flags over it, as `startApp` and `startConfig` take them. */
function configOptions(parsed: ParsedArgs, io: Io): Pick<StartAppOptions, "defaultConfig" | "flags" | "cwd" | "env"> {
  const { config, workspace, model, baseURL, maxSteps } = parsed.flags;
  return {
    // Only without --config is the current folder's config looked for (and two of them refused).
    defaultConfig: config === undefined ? defaultConfig(io.cwd, io.env) : SHIPPED_CONFIG,
    flags: { config, workspace, model, baseURL, maxSteps },
    cwd: io.cwd,
    env: io.env,
  };
}

/** A bad flag's value is a usage error, with the command's `--help` hint. */
function usageError(parsed: ParsedArgs): (error: unknown) => never {
  return (error) => {
    throw error instanceof FlagError ? new UsageError(error.message, parsed.command) : error;
  };
}

/** Apps loaded and not yet closed: their MCP servers end when the command does. */
const opened = new Set<StartedApp>();

/** Closes every app `loadApp` loaded (ending the MCP servers and plugin hosts they started), as the CLI is about to exit. */
export async function closeApps(): Promise<void> {
  const apps = [...opened];
  opened.clear();
  // The CLI exits next, which ends what is left of the hosts: no need to wait for that here.
  await Promise.all(apps.map((app) => app.close({ wait: false })));
}

function stderrLogger(io: Io): Logger {
  return {
    debug() {},
    info() {},
    warn: (message) => io.note(`warning: ${message}`),
  };
}
