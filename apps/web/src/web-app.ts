/**
 * The whole app as the process runs it: config read, plugins loaded and model client made
 * once at start, one server sharing them, all of it released by `close()`.
 */
import { join } from "node:path";
import { type App, startApp } from "@plugboard/bootstrap";
import type { Logger } from "@plugboard/core";
import type OpenAI from "openai";
import { startWebServer, type WebServer } from "./server.ts";

/** The config file the web app uses when `--config` is not given. */
export const DEFAULT_CONFIG_PATH = join(import.meta.dir, "../plugboard.config.json");

/** Options of `startWebApp`, mostly from the command line. */
export interface WebAppOptions {
  /** @default DEFAULT_CONFIG_PATH */
  readonly configPath?: string;
  /** Overrides the config's workspace. */
  readonly workspace?: string;
  /** The folder relative paths start from, and the default workspace. @default process.cwd() */
  readonly cwd?: string;
  /** @default process.env */
  readonly env?: Record<string, string | undefined>;
  readonly port?: number;
  readonly host?: string;
  readonly token?: string | undefined;
  /** Receives plugin logs and the server's failure reports. */
  readonly logger?: Logger;
}

/** A running web app. */
export interface WebApp {
  readonly app: App;
  readonly client: OpenAI;
  /** True when the offline demo model answers (no API key and no base URL configured). */
  readonly demo: boolean;
  readonly server: WebServer;
  /**
   * Stops the server, aborting every turn in flight, then ends the app's plugin hosts and MCP
   * servers; the client is not used afterwards.
   */
  close(): Promise<void>;
}

/**
 * Starts the app (config, plugins, model client) and the server; when the server cannot start,
 * the app is closed again.
 * Throws `PlugboardError` for a bad config, plugin or binding.
 *
 * @example const web = await startWebApp({ port: 0 }); console.log(web.server.url);
 */
export async function startWebApp(options: WebAppOptions = {}): Promise<WebApp> {
  const { model, ...app } = await startApp({
    defaultConfig: DEFAULT_CONFIG_PATH,
    flags: { config: options.configPath, workspace: options.workspace },
    model: true,
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const { client, demo, apiKeySet } = model;
  app.warmUp();
  const logger = options.logger;
  const server = await startWebServer({
    app,
    client,
    model: app.config.model.name,
    apiKeySet,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
    token: options.token,
    ...(logger ? { log: (line: string) => logger.warn(line) } : {}),
  }).catch(async (error: unknown) => {
    await app.close();
    throw error;
  });
  const close = async (): Promise<void> => {
    await server.close();
    await app.close();
  };
  return { app, client, demo, server, close };
}
