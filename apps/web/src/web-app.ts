/**
 * The whole app as the process runs it: config read, plugins loaded and model client made
 * once at start, one server sharing them, all of it released by `close()`.
 */
import { join, relative, resolve } from "node:path";
import { type App, type HostPrograms, PlugboardError, startApp } from "@plugboard/bootstrap";
import type { Logger } from "@plugboard/core";
import type OpenAI from "openai";
import { PendingElicitations } from "./elicitations.ts";
import { DEFAULT_HOST, DEFAULT_PORT, startWebServer, type WebServer } from "./server.ts";

/** The config file the web app uses when `--config` is not given. */
export const DEFAULT_CONFIG_PATH = join(import.meta.dir, "../plugboard.config.json");

/**
 * The web app's own package folder: a plugin package the config's folder does not have is
 * looked up here, among the plugins the app ships with, as the CLI does from its own.
 */
export const WEB_FOLDER = resolve(import.meta.dir, "..");

/** Options of `startWebApp`, mostly from the command line. */
export interface WebAppOptions {
  /** The config named on the command line (`--config`). */
  readonly configPath?: string;
  /** The config used without `configPath`. @default DEFAULT_CONFIG_PATH */
  readonly defaultConfig?: string;
  /** Where plugin packages the config's folder lacks are looked up (the app's shipped plugins). @default WEB_FOLDER */
  readonly appFolder?: string;
  /** The programs confined plugins' hosts start with, shipped with the app (see `BuildAppOptions.hostPrograms`). */
  readonly hostPrograms?: HostPrograms;
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
  /** The model and the endpoint it answers at (never the key). */
  readonly endpoint: { readonly model: string; readonly baseURL: string };
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
  const elicitations = new PendingElicitations();
  const { model, ...app } = await startApp({
    defaultConfig: options.defaultConfig ?? DEFAULT_CONFIG_PATH,
    flags: { config: options.configPath, workspace: options.workspace },
    appFolder: options.appFolder ?? WEB_FOLDER,
    ...(options.hostPrograms === undefined ? {} : { hostPrograms: options.hostPrograms }),
    model: true,
    env: options.env,
    cwd: options.cwd,
    logger: options.logger,
    elicit: elicitations.elicit,
  });
  const { client, demo, apiKeySet } = model;
  app.warmUp();
  const logger = options.logger;
  const server = await startWebServer({
    app,
    client,
    model: app.config.model.name,
    apiKeySet,
    demo,
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
    token: options.token,
    elicitations,
    // A config of the app's own install (the shipped one) is never written: grants given there hold for the session.
    ...(within(app.config.configPath, options.appFolder ?? WEB_FOLDER) ? {} : { grantsSaveTo: app.config.configPath }),
    ...(logger ? { log: (line: string) => logger.warn(line) } : {}),
  }).catch(async (error: unknown) => {
    await app.close();
    const problem = listenProblem(error, options.host ?? DEFAULT_HOST, options.port ?? DEFAULT_PORT);
    throw problem === undefined ? error : new PlugboardError("USAGE", `Could not listen: ${problem}`);
  });
  const close = async (): Promise<void> => {
    await server.close();
    await app.close();
  };
  return { app, client, demo, endpoint: model.endpoint, server, close };
}

function within(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
}

/**
 * What the process says on stderr once the app listens: the model in use (or that the demo
 * model answers), the workspace, the tools, whether a token is required, and the address.
 */
export function startupLines(web: WebApp, tokenRequired: boolean): string[] {
  const tools = web.app.registry.names();
  return [
    web.demo
      ? "No MODEL_API_KEY and no BASE_URL configured: the offline demo model answers (set them to use a real model)."
      : `Model: ${web.endpoint.model} at ${web.endpoint.baseURL}`,
    `Workspace: ${web.app.config.workspace}`,
    `Tools: ${tools.length > 0 ? tools.join(", ") : "(none)"}`,
    ...(tokenRequired ? ['The API requires "Authorization: Bearer TOKEN".'] : []),
    `Plugboard web chat listening on ${web.server.url}`,
  ];
}

/** What to change when the server could not listen at `host`:`port`, or undefined for another failure. */
function listenProblem(error: unknown, host: string, port: number): string | undefined {
  const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
  if (code === "EADDRINUSE") return `port ${port} on ${host} is in use by another program. Choose another with --port, or --port 0 for any free one.`;
  if (code === "EADDRNOTAVAIL") return `${host} is not an address of this machine. Choose one with --host (default ${DEFAULT_HOST}).`;
  if (code === "EACCES") return `port ${port} needs privileges this user does not have. Choose one above 1023 with --port.`;
  return undefined;
}
