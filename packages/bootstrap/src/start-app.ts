/**
 * An app's whole startup in one call: the config file (the flag's or the app's default),
 * the flags, the environment, the plugins and, when asked for, the model client. Every app
 * starts here, so each flag is resolved and checked in one place.
 */
import { resolve } from "node:path";
import type { Logger } from "@plugboard/core";
import { lazily } from "@plugboard/core/internal";
import { trace } from "@plugboard/core/trace";
import { type App, buildApp } from "./build-app.ts";
import type { ChangedTools } from "./pinned-tools.ts";
import { type ConfigOverrides, loadConfig } from "@plugboard/config";
import type { Elicitor } from "@plugboard/mcp";
import type { ModelClient } from "@plugboard/agent";

/** The command-line flags an app passes on, as typed; each wins over the environment and the config file. */
export interface AppFlags extends ConfigOverrides {
  /** The config file, relative to `cwd`; else `defaultConfig`. */
  config?: string;
}

/** Inputs of `startApp`. */
export interface StartAppOptions {
  /** The config file used when `flags.config` is not given (absolute, or relative to `cwd`). */
  readonly defaultConfig: string;
  readonly flags?: AppFlags;
  /** The folder relative paths start from, and the default workspace. @default process.cwd() */
  readonly cwd?: string;
  /** @default process.env */
  readonly env?: Record<string, string | undefined>;
  /** Given to every plugin and tool; silent by default. */
  readonly logger?: Logger;
  /** The app's own package folder, whose plugins serve `package` entries the config's folder lacks (see `buildApp`). */
  readonly appFolder?: string;
  /** Also create the model client (this loads the `openai` SDK). @default false */
  readonly model?: boolean;
  /** Start every confined plugin's host now rather than on its first call (see `buildApp`). @default false */
  readonly freshHosts?: boolean;
  /** Tools about to be called, whose hosts start at once (see `buildApp`). */
  readonly warm?: readonly string[];
  /** Shows a mounted MCP server's request for input to the person (see `buildApp`). */
  readonly elicit?: Elicitor;
  /** What to do with pinned tools that changed (see `buildApp`). @default withheld, with a warning */
  readonly changedTools?: ChangedTools;
}

/** A started app: the built app and, when asked for, its model client. */
export interface StartedApp extends App {
  readonly model: ModelClient | undefined;
}

/**
 * Loads the config with the flags, builds the app (all or nothing) and, with `model: true`,
 * creates the model client. Throws `PlugboardError`: `FlagError` (`USAGE`) for a bad flag
 * value, then the config and plugin errors of `loadConfig` and `buildApp`.
 *
 * @example const { runtime, model } = await startApp({ defaultConfig: "plugboard.json", flags: { maxSteps: "5" }, model: true });
 */
export async function startApp(options: StartAppOptions & { model: true }): Promise<StartedApp & { model: ModelClient }>;
export async function startApp(options: StartAppOptions): Promise<StartedApp>;
export async function startApp(options: StartAppOptions): Promise<StartedApp> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const { config: configFlag, ...overrides } = options.flags ?? {};
  const config = await loadConfig(resolve(cwd, configFlag ?? options.defaultConfig), {
    overrides,
    cwd,
    ...(options.env ? { env: options.env } : {}),
  });
  trace("app: config loaded");
  const app = await buildApp(config, {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.appFolder ? { appFolder: options.appFolder } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.freshHosts ? { freshHosts: true } : {}),
    ...(options.warm === undefined ? {} : { warm: options.warm }),
    ...(options.elicit === undefined ? {} : { elicit: options.elicit }),
    ...(options.changedTools === undefined ? {} : { changedTools: options.changedTools }),
  });
  if (!options.model) return { ...app, model: undefined };
  const { createModelClient } = await lazily("the model client @plugboard/agent", () => import("@plugboard/agent"));
  return { ...app, model: createModelClient(config.model) };
}
