/**
 * Building an app from its config: open the workspace, check every plugin's manifest, load
 * the plugins, open the audit log, start the MCP servers, then build the registry and runtime
 * (with the policy). All or nothing: the first failure throws, nothing is registered and no
 * server is left running.
 */
import { type Logger, silentLogger, Workspace } from "@plugboard/core";
import { ToolRegistry, ToolRuntime, WorkspaceError } from "@plugboard/core/runtime";
import type { RegistryEntry } from "@plugboard/core/internal";
import { type AuditLog, openAuditLog } from "./audit-log.ts";
import type { AppConfig, McpEntry, PluginEntry } from "./config.ts";
import { PlugboardError } from "./errors.ts";
import type { LoadedPlugin } from "./loaded-plugin.ts";
import { mcpErrors, type PluginAt, pluginErrors } from "./messages.ts";
import { type McpLauncher, type MountContext, type MountedServer, mountServer, type ServerMount } from "./mount-server.ts";
import { PERMISSIONS, type Permission } from "./permissions.ts";
import { beginWritableSpan, plantedRecordFile } from "./planted-files.ts";
import { listingCacheFolder } from "./plugin-host/listing-cache.ts";
import type { HostContext, HostedPlugin } from "./plugin-host/start-host.ts";
import { type ResolvedPlugin, resolvePlugin } from "./resolve-plugin.ts";
import type { ProtectedPath } from "@plugboard/sandbox";
import { detectSandbox, type SandboxState, sandboxState } from "./sandbox-mode.ts";

/** A ready app: its config, workspace, registry, runtime and the plugins that provide its tools. */
export interface App {
  config: AppConfig;
  workspace: Workspace;
  registry: ToolRegistry;
  runtime: ToolRuntime;
  /** In config order. */
  plugins: readonly LoadedPlugin[];
  /** The MCP servers whose tools are mounted, in config order. */
  servers: readonly MountedServer[];
  /** For each tool, the permissions the config grants to the plugin or server providing it. */
  toolGrants: ReadonlyMap<string, readonly Permission[]>;
  /** The sandbox in force, and which plugins run confined in their hosts. */
  sandbox: SandboxState & { readonly confined: readonly string[] };
  /**
   * Starts, in the background, every plugin host mounted from the listing cache (which
   * otherwise starts on the first call of one of its tools), so that the first call does
   * not wait for it. For apps about to run tools (a model turn, a server); a host that
   * fails to start fails that call, as it would have.
   */
  warmUp(): void;
  /** Ends the plugin hosts and MCP servers the app started (their whole process trees); safe to call twice. They also end when the process exits, however it exits. */
  close(): Promise<void>;
}

/** Inputs of `buildApp` besides the config. */
export interface BuildAppOptions {
  /** Given to every plugin and tool; silent by default. */
  logger?: Logger;
  /**
   * The running app's own package folder: `package` entries not installed for the config's
   * folder are resolved from there (the plugins the app ships). None by default.
   */
  appFolder?: string;
  /** Rewrites each stdio MCP server's command line before it starts; by default the sandbox confines it with its grants. */
  mcpLauncher?: McpLauncher;
  /**
   * Where the sandbox's detection reads its override (`PLUGBOARD_SANDBOX_DISABLE`), and
   * where the listing cache's folder comes from (`XDG_CACHE_HOME`, `HOME`). @default process.env
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Start every confined plugin's host now and list its tools, even when the listing cache
   * holds them for the unchanged plugin (`plugboard check` does). By default such a host
   * starts on its first call. @default false
   */
  freshHosts?: boolean;
  /**
   * The plugin hosts' program, when the app carries a bundle of `@plugboard/bootstrap/plugin-host`
   * (the CLI's `dist/host.js`: a host then loads one file instead of the bootstrap's, core's and
   * the MCP SDK's sources). Its folder stays readable to every host. @default the bootstrap's own host-main.ts
   */
  hostProgram?: string;
}

/**
 * Resolves, validates and loads every plugin, starts every MCP server, then builds
 * registry + runtime; all or nothing (hosts and servers already started are closed on
 * failure). Every manifest is checked before any plugin's code is imported. Confined
 * plugins (see `sandboxState`) load in plugin hosts, started in parallel; the others are
 * imported into this process. The order of
 * `config.plugins` is the order of the tools sent to the model.
 *
 * @example const app = await buildApp(await loadConfig("plugboard.json"));
 */
export async function buildApp(config: AppConfig, options: BuildAppOptions = {}): Promise<App> {
  const logger = options.logger ?? silentLogger;
  const detecting = detectSandbox(config, options.env);
  const workspace = await openWorkspace(config);

  const resolved = await resolvePlugins(config, options.appFolder);
  checkToolNames(resolved, config.configPath);

  const sandbox = sandboxState(config, logger, await detecting);
  const { mechanism } = sandbox;
  const isConfined = (plugin: ResolvedPlugin) => mechanism !== undefined && plugin.entry.sandbox !== false;
  const listing = { cacheFolder: listingCacheFolder(options.env ?? process.env), fresh: options.freshHosts === true };
  const protect = mechanism === undefined ? () => [] : await protectedPathsOf(config, workspace.root, listing.cacheFolder);
  // From here until the app closes, confined plugins may write the workspace: files that appear there meanwhile are suspect.
  const writers =
    resolved.some((plugin) => isConfined(plugin) && plugin.entry.permissions.includes("fs.write")) ||
    (mechanism !== undefined && options.mcpLauncher === undefined && config.plugins.some((entry) => !isPlugin(entry) && confinesServer(entry) && entry.permissions.includes("fs.write")));
  const endSpan = writers ? beginWritableSpan(plantedRecordFile(options.env ?? process.env), workspace.root, (message) => logger.warn(message)) : () => {};
  let hosts: Map<number, HostedPlugin>;
  try {
    hosts =
      mechanism === undefined
        ? new Map<number, HostedPlugin>()
        : await startHosts(resolved.filter(isConfined), mechanism, {
            workspace: workspace.root,
            logger,
            listing,
            protect,
            ...(options.hostProgram === undefined ? {} : { hostProgram: options.hostProgram }),
          });
  } catch (error) {
    endSpan();
    throw error;
  }
  const closeHosts = async () => {
    await Promise.all([...hosts.values()].map((host) => host.close()));
  };

  const loaded = new Map<number, { grants: readonly Permission[]; entries: readonly RegistryEntry[] }>();
  const plugins: LoadedPlugin[] = [];
  let mounts: (ServerMount & { index: number })[] = [];
  let auditLog: AuditLog | undefined;
  const close = async () => {
    await Promise.all([closeHosts(), ...mounts.map(({ mount }) => mount.close())]);
    endSpan();
    auditLog?.close();
  };
  try {
    for (const plugin of resolved) {
      const load = hosts.get(plugin.where.index) ?? (await (await import("./load-plugin.ts")).loadPlugin(plugin, { workspace, logger }));
      plugins.push(load.plugin);
      loaded.set(plugin.where.index, { grants: plugin.entry.permissions, entries: load.entries });
      logger.debug(`loaded plugin ${load.plugin.name}@${load.plugin.version}: ${load.plugin.tools.map((t) => t.name).join(", ")}`);
    }
    auditLog = config.audit === undefined ? undefined : openAuditLog(config.audit, config.configPath);
    const launcher =
      options.mcpLauncher ??
      (mechanism === undefined ? undefined : await confiningLauncher(mechanism, { workspace: workspace.root, configPath: config.configPath, protect, env: options.env ?? process.env, logger }));
    mounts = await mountServers(config, { workspace, logger, launcher });
    // Only the servers our sandbox confines: a launcher given by the caller confines (or not) in its own way.
    if (options.mcpLauncher === undefined && mechanism !== undefined) mounts = await explainingServers(mounts, config, { workspace: workspace.root, protect });
    for (const { index, server, entries } of mounts) loaded.set(index, { grants: server.permissions, entries });
    const ordered = [...loaded].sort(([a], [b]) => a - b);
    checkMountedNames(ordered, config);
    const entries = ordered.flatMap(([, load]) => load.entries);
    const toolGrants = new Map(ordered.flatMap(([, load]) => load.entries.map(({ tool }) => [tool.name, load.grants] as const)));
    const registry = new ToolRegistry(entries);
    const runtime = new ToolRuntime(registry, { workspace, logger, policy: config.policy, ...(auditLog ? { audit: auditLog.write } : {}) });
    const confined = resolved.filter(isConfined).map((plugin) => plugin.manifest.name);
    const servers = mounts.map(({ server }) => server);
    const warmUp = () => {
      for (const host of hosts.values()) host.mount.warm();
    };
    return { config, workspace, registry, runtime, plugins, servers, toolGrants, sandbox: { ...sandbox, confined }, warmUp, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Locates and checks every plugin of the config at once; the first failure in config order is thrown. */
async function resolvePlugins(config: AppConfig, appFolder: string | undefined): Promise<ResolvedPlugin[]> {
  const plugins = [...config.plugins.entries()].flatMap(([index, entry]) => (isPlugin(entry) ? [{ index, entry }] : []));
  return allOrNothing(plugins.map(({ index, entry }) => resolvePlugin(entry, { index, configPath: config.configPath }, appFolder)));
}

/**
 * Starts the hosts of the confined plugins at once, keyed by config index; if one fails,
 * the others are closed and the first failure in config order is thrown. The host code is
 * imported only when a plugin runs confined, and the MCP SDK only when a host starts: a host
 * mounted from the listing cache starts on its first call (or at `warmUp`).
 */
async function startHosts(
  confined: readonly ResolvedPlugin[],
  mechanism: NonNullable<SandboxState["mechanism"]>,
  context: HostContext,
): Promise<Map<number, HostedPlugin>> {
  if (confined.length === 0) return new Map();
  const { startHost } = await import("./plugin-host/start-host.ts");
  const started = await allOrNothing(
    confined.map(async (plugin) => [plugin.where.index, await startHost(plugin, mechanism, context)] as const),
    ([, host]) => host.close(),
  );
  return new Map(started);
}

/** Confines each stdio MCP server with its entry's grants. */
async function confiningLauncher(
  mechanism: NonNullable<SandboxState["mechanism"]>,
  app: { workspace: string; configPath: string; protect: () => readonly ProtectedPath[]; env: Readonly<Record<string, string | undefined>>; logger: Logger },
): Promise<McpLauncher> {
  const { confineServer, serverCacheRoot } = await import("./plugin-host/confine-server.ts");
  const cacheRoot = serverCacheRoot(app.env);
  const warn = (message: string) => app.logger.warn(message);
  return (launch, entry) =>
    confinesServer(entry)
      ? confineServer(
          launch,
          { name: entry.name, grants: entry.permissions, workspace: app.workspace, configPath: app.configPath, protect: app.protect(), cacheRoot, warn },
          mechanism,
        )
      : launch;
}

/** Whether our sandbox confines `entry`'s server: a stdio server not marked `"sandbox": false`. */
function confinesServer(entry: McpEntry): boolean {
  return entry.sandbox !== false && "command" in entry.mcp;
}

/** The confined stdio servers' mounts with entries whose results end with the hint of a sandbox refusal. */
async function explainingServers(
  mounts: readonly (ServerMount & { index: number })[],
  config: AppConfig,
  app: { workspace: string; protect: () => readonly ProtectedPath[] },
): Promise<(ServerMount & { index: number })[]> {
  const isConfined = ({ index }: { index: number }) => {
    const entry = config.plugins[index];
    return entry !== undefined && !isPlugin(entry) && confinesServer(entry);
  };
  if (!mounts.some(isConfined)) return [...mounts];
  const { explainingRefusals } = await import("./plugin-host/refusal-hint.ts");
  return mounts.map((mount) => {
    if (!isConfined(mount)) return mount;
    // A server has no manifest: any permission can be granted to it.
    const context = {
      plugin: mount.server.name,
      grants: mount.server.permissions,
      offered: PERMISSIONS,
      workspace: app.workspace,
      configPath: config.configPath,
      get protect() {
        return app.protect();
      },
    };
    return { ...mount, entries: mount.entries.map((entry) => explainingRefusals(entry, context)) };
  });
}

/**
 * The protected paths as each host or server start finds them (`.git/hooks/` made, the
 * audit log created), so that one created since the app started is protected from the
 * next start on; loaded only when something may run confined.
 */
async function protectedPathsOf(config: AppConfig, workspace: string, cacheFolder: string | undefined): Promise<() => ProtectedPath[]> {
  const { protectedPaths } = await import("./plugin-host/protected-paths.ts");
  return () => protectedPaths(config, workspace, cacheFolder);
}

function isPlugin(entry: PluginEntry | McpEntry): entry is PluginEntry {
  return !("mcp" in entry);
}

/** Starts every MCP server of the config at once; if one fails, the others are closed. */
async function mountServers(config: AppConfig, context: MountContext): Promise<(ServerMount & { index: number })[]> {
  const servers = [...config.plugins.entries()].flatMap(([index, entry]) => (isPlugin(entry) ? [] : [{ index, entry }]));
  return allOrNothing(
    servers.map(async ({ index, entry }) => ({ index, ...(await mountServer(entry, { index, configPath: config.configPath }, context)) })),
    ({ mount }) => mount.close(),
  );
}

/**
 * The results of `pending`, in order, once all have settled; if any failed, those that
 * succeeded are closed (with `close`) and the first failure in order is thrown.
 */
async function allOrNothing<T>(pending: readonly Promise<T>[], close?: (done: T) => Promise<void>): Promise<T[]> {
  const outcomes = await Promise.allSettled(pending);
  const done = outcomes.flatMap((outcome) => (outcome.status === "fulfilled" ? [outcome.value] : []));
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed === undefined) return done;
  if (close !== undefined) await Promise.all(done.map(close));
  throw failed.reason;
}

/** Opens the workspace; when the config file chose it, the message says so. */
async function openWorkspace(config: AppConfig): Promise<Workspace> {
  try {
    return await Workspace.open(config.workspace);
  } catch (error) {
    if (!(error instanceof WorkspaceError)) throw error;
    const source = config.workspaceSource === "config" ? `\nThe workspace is set by "workspace" in ${config.configPath}.` : "";
    throw new PlugboardError("WORKSPACE_INVALID", `${error.message}${source}`, { cause: error });
  }
}

/** Two plugins may not provide the same tool: checked from the manifests, before any code runs. */
function checkToolNames(resolved: readonly ResolvedPlugin[], configPath: string): void {
  const owners = new Map<string, PluginAt>();
  for (const { manifest, where } of resolved) {
    for (const { name } of manifest.tools) {
      const first = owners.get(name);
      const second = { name: manifest.name, index: where.index };
      if (first) throw pluginErrors.duplicateTool(name, first, second, configPath);
      owners.set(name, second);
    }
  }
}

/** Tool names of plugins and MCP servers together, in config order: a clash involving a server names `prefix` as the fix. */
function checkMountedNames(ordered: readonly [number, { entries: readonly RegistryEntry[] }][], config: AppConfig): void {
  const owners = new Map<string, PluginAt & { mcp: boolean }>();
  for (const [index, { entries }] of ordered) {
    const entry = config.plugins[index];
    const mcp = entry !== undefined && !isPlugin(entry);
    for (const { tool, owner } of entries) {
      const first = owners.get(tool.name);
      const second = { name: owner ?? "", index, mcp };
      if (first) throw mcpErrors.duplicateTool(tool.name, first, second, second.mcp ? second : first, config.configPath);
      owners.set(tool.name, second);
    }
  }
}
