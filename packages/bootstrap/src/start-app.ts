/**
 * An app's whole startup in one call: the config file (the flag's or the app's default),
 * the flags, the environment, the plugins and, when asked for, the model client. Every app
 * starts here, so each flag is resolved and checked in one place.
 */
import { resolve } from "node:path";
import { lazily } from "@plugboard/core/internal";
import type { BuildAppOptions } from "./app-options.ts";
import { trace } from "@plugboard/core/trace";
import { type App, buildApp } from "./build-app.ts";
import { type AppConfig, type ConfigOverrides, loadConfig } from "@plugboard/config";
import type { ModelClient } from "@plugboard/agent";

/** The command-line flags an app passes on, as typed; each wins over the environment and the config file. */
export interface AppFlags extends ConfigOverrides {
  /** The config file, relative to `cwd`; else `defaultConfig`. */
  config?: string;
}

/** Inputs of `startApp`: where the config is and the flags, and what `buildApp` is given (passed on whole). */
export interface StartAppOptions extends BuildAppOptions {
  /** The config file used when `flags.config` is not given (absolute, or relative to `cwd`). */
  readonly defaultConfig: string;
  readonly flags?: AppFlags;
  /** The folder relative paths start from, and the default workspace. @default process.cwd() */
  readonly cwd?: string;
  /** Also create the model client (this loads the `openai` SDK). @default false */
  readonly model?: boolean;
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
  const config = await startConfig(options);
  const app = await buildApp(config, options);
  if (!options.model) return { ...app, model: undefined };
  const { createModelClient } = await lazily("the model client @plugboard/agent", () => import("@plugboard/agent"));
  return { ...app, model: createModelClient(config.model) };
}

/**
 * The config `startApp` starts from (the flag's file or `defaultConfig`, with the flags and the
 * environment), without building the app: for what needs only the config, such as the kept
 * conversations of a config and workspace. Throws as `loadConfig` does (`FlagError` for a bad flag).
 */
export async function startConfig(options: Pick<StartAppOptions, "defaultConfig" | "flags" | "cwd" | "env">): Promise<AppConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const { config: configFlag, ...overrides } = options.flags ?? {};
  const config = await loadConfig(resolve(cwd, configFlag ?? options.defaultConfig), { overrides, cwd, env: options.env });
  trace("app: config loaded");
  return config;
}
