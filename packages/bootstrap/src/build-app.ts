/**
 * Building an app from its config: open the workspace, check every plugin's manifest, load
 * the plugins, open the audit log, start the MCP servers, then build the registry and runtime
 * (with the policy). All or nothing: the first failure throws, nothing is registered and no
 * server is left running.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Logger, silentLogger, Workspace, prepareResultsFolder, ResultsFolderError, ToolRegistry } from "@plugboard/core";
import { WorkspaceError, lazily, type RegistryEntry } from "@plugboard/core/internal";
import { trace } from "@plugboard/core/trace";
import { ToolRuntime, wildcardMatch } from "@plugboard/runtime";
import type { AppConfig, McpEntry, PluginEntry } from "@plugboard/config";
import { PlugboardError } from "@plugboard/config/errors";
import { configErrors, mcpErrors, type PluginAt, pluginErrors } from "@plugboard/config/messages";
import { PERMISSIONS, type Permission } from "@plugboard/config/permissions";
import { ensureLock, lockFileOf } from "@plugboard/config/lock-file";
import { beginWritableSpan, plantedRecordFile } from "@plugboard/config/planted-files";
import type { ConfinedHost, HostContext } from "@plugboard/hosts/confined";
import type { CloseOptions, PluginHost } from "@plugboard/hosts/host";
import { listingCacheFolder } from "@plugboard/hosts/listing-cache";
import { LimitTally } from "@plugboard/hosts/limit-tally";
import { NetworkRefusals } from "@plugboard/hosts/network-refusals";
import type { LeftoverHandler, LeftoverWatch } from "@plugboard/hosts/leftovers";
import type { RefusalContext } from "@plugboard/hosts/refusal-hint";
import { detectSandbox, type SandboxState, sandboxState } from "@plugboard/hosts/sandbox-mode";
import type { LoadedPlugin } from "@plugboard/loader/loaded-plugin";
import { type ResolvedPlugin, resolvePlugin } from "@plugboard/loader/resolve-plugin";
import type { Elicitor } from "@plugboard/mcp";
import type { EgressRecord, Limits, ProtectedPath } from "@plugboard/sandbox";
import { type AuditLog, openAuditLog } from "./audit-log.ts";
import { type CodePinning, pinCode, pinnedCode, withheldCodeLine } from "./code-pins.ts";
import { checkToolSearch } from "./tool-search-check.ts";
import { type McpLauncher, type MountContext, type MountedServer, mountServer, type ServerMount } from "./mount-server.ts";
import { type ChangedTools, type Pinning, type PinnedSource, pinTools, withheldLine } from "./pinned-tools.ts";

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
  /** The pinned tools (plugboard.lock.json): those withheld from the model since they changed, and those accepted now. */
  pinning: Pinning;
  /** The pinned code (plugboard.lock.json): plugins not loaded since their files changed, and those accepted now. */
  codePinning: CodePinning;
  /** The sandbox in force, and which plugins run confined in their hosts. */
  sandbox: SandboxState & { readonly confined: readonly string[] };
  /**
   * Starts, in the background, every plugin host mounted from the listing cache (which
   * otherwise starts on the first call of one of its tools), so that the first call does
   * not wait for it. For apps about to run tools (a model turn, a server); a host that
   * fails to start fails that call, as it would have.
   */
  warmUp(): void;
  /**
   * Ends the plugin hosts and MCP servers the app started (their whole process trees); safe
   * to call twice. They also end when the process exits, however it exits: a process about to
   * exit passes `{ wait: false }` not to wait for the hosts' namespaces to be torn down.
   */
  close(options?: CloseOptions): Promise<void>;
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
   * Tools about to be called (`plugboard call TOOL`): the hosts that provide them start now,
   * in the background, while the rest of the app is built, instead of at the first call.
   * `warmUp()` starts them all. @default none
   */
  warm?: readonly string[];
  /**
   * Shows a mounted MCP server's request for input (elicitation) to the person. Without
   * one, such requests are declined: there is no one to ask. @default none
   */
  elicit?: Elicitor;
  /**
   * Pinned tools that changed since plugboard.lock.json pinned them: accept those of one
   * plugin, server or tool, or ask about each. @default withheld from the model, each said
   * with how to accept it (a warning)
   */
  changedTools?: ChangedTools;
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
  // What confined plugins need is loaded meanwhile, unless the config turns the sandbox off.
  const confining = config.sandbox === "off" ? undefined : confinementModules();
  // Awaited below only when a mechanism is found: a failure is not left unhandled meanwhile.
  confining?.catch(() => undefined);
  const workspace = await openWorkspace(config);

  const found = await resolvePlugins(config, options.appFolder);
  trace("app: plugins resolved");
  checkToolNames(found, config.configPath);
  // Before any plugin's code runs: a plugin whose files differ from what the person accepted is not loaded.
  const codeSources = await pinnedCode(found, options.appFolder, workspace.root);
  // What the app writes itself (the lock) is trusted as written, so that the next start reads it (see `writeTrusted`).
  const plantedRecord = plantedRecordFile(options.env ?? process.env);
  const codePinning = await pinCode(lockFileOf(config.configPath), codeSources, options.changedTools, plantedRecord);
  if (options.changedTools === undefined) for (const change of codePinning.withheld) logger.warn(withheldCodeLine(change, lockFileOf(config.configPath)));
  const unloaded = new Set(codePinning.withheld.map(({ source }) => source));
  const resolved = found.filter((plugin) => !unloaded.has(plugin.manifest.name));
  trace("app: code pins checked");

  const sandbox = sandboxState(config, logger, await detecting);
  trace("app: sandbox detected");
  const { mechanism } = sandbox;
  const isConfined = (plugin: ResolvedPlugin) => mechanism !== undefined && plugin.entry.sandbox !== false;
  const listing = { cacheFolder: listingCacheFolder(options.env ?? process.env), fresh: options.freshHosts === true };
  const modules = mechanism === undefined ? undefined : await (confining ?? confinementModules());
  trace("app: confinement's modules loaded");
  // One walk of the workspace for repositories and other tools' files, kept: each host start and each after-call look reads only what changed.
  const walker = modules === undefined ? undefined : new modules.WorkspaceWalker(workspace.root, config.protectDepth);
  // From here until the app closes, confined plugins may write the workspace: files that appear there meanwhile are suspect.
  const writers =
    resolved.some((plugin) => isConfined(plugin) && plugin.entry.permissions.includes("fs.write")) ||
    (mechanism !== undefined && options.mcpLauncher === undefined && config.plugins.some((entry) => !isPlugin(entry) && confinesServer(entry) && entry.permissions.includes("fs.write")));
  // The app's own code and every enabled plugin's, found once (code does not move while the app runs), when any confined process may write.
  let code: readonly ProtectedPath[] | undefined;
  const codeFolders = [...(options.appFolder === undefined ? [] : [options.appFolder]), ...found.map(({ directory }) => directory)];
  const closureCache = listing.cacheFolder === undefined ? undefined : join(listing.cacheFolder, "closures.json");
  const protect =
    modules === undefined
      ? () => []
      : () => {
          code ??= writers ? modules.codeProtections(codeFolders, workspace.root, closureCache) : [];
          return [...modules.protectedPaths(config, workspace.root, listing.cacheFolder, walker), ...code];
        };
  // Made before any host starts, so that the sandbox keeps `.plugboard/` read-only and only its results/ writable.
  if (writers) resultsFolder(workspace.root, logger);
  // The lock too: a confined plugin cannot write a pin for the person.
  if (writers && (codeSources.length > 0 || config.plugins.some((entry) => !isPlugin(entry)))) await ensureLock(lockFileOf(config.configPath), plantedRecord);
  const endSpan = writers ? beginWritableSpan(plantedRecord, workspace.root, (message) => logger.warn(message)) : () => {};
  let auditLog: AuditLog | undefined;
  // A narrowed host's connections go to the audit log; those made before it opens (while a plugin loads) once it has.
  const early: EgressRecord[] = [];
  // And each refusal is kept a moment, for the hint at the end of the result of the call it was made in.
  const refusals = new NetworkRefusals();
  // How often each confined server's limits refused, over its restarts, by its name.
  const tallies = new ServerTallies();
  const onConnection = (record: EgressRecord) => {
    refusals.record(record);
    if (auditLog !== undefined) auditLog.connection(record);
    else if (config.audit !== undefined) early.push(record);
  };
  // What confined plugins that may write the workspace leave behind is looked for after each of their calls, against the workspace as it is now.
  const watch = modules !== undefined && resolved.some((plugin) => isConfined(plugin) && plugin.entry.permissions.includes("fs.write")) && walker !== undefined ? new modules.LeftoverWatch(workspace.root, walker) : undefined;
  let confined: Map<number, ConfinedHost>;
  try {
    confined =
      mechanism === undefined
        ? new Map<number, ConfinedHost>()
        : await startHosts(resolved.filter(isConfined), mechanism, { workspace: workspace.root, logger, listing, protect, onConnection, limits: config.limits }, options.warm ?? [], modules);
  } catch (error) {
    endSpan();
    throw error;
  }
  const hosts: PluginHost[] = [...new Set(confined.values())];
  trace("app: hosts mounted");

  const loaded = new Map<number, { grants: readonly Permission[]; entries: readonly RegistryEntry[] }>();
  const plugins: LoadedPlugin[] = [];
  let mounts: (ServerMount & { index: number })[] = [];
  const close = async (options?: CloseOptions) => {
    await Promise.all([...hosts.map((host) => host.close(options)), ...mounts.map(({ mount }) => mount.close())]);
    endSpan();
    auditLog?.close();
  };
  try {
    const onLeftovers: LeftoverHandler = (call, leftovers, line) => {
      logger.warn(line.replace(/^plugboard: /, ""));
      const ts = new Date().toISOString();
      for (const leftover of leftovers) auditLog?.leftover({ ts, event: "leftover", ...call, ...leftover });
      // Every host's view is made again before its next call: a path protected for one is protected for all.
      for (const host of new Set(confined.values())) host.refresh();
    };
    const leftovers = watch === undefined ? undefined : { watch, handle: onLeftovers, report: modules?.reportingLeftovers };
    const confinedEntries = confined.size === 0 ? undefined : await explainedEntries(confined, resolved, { workspace: workspace.root, refusals, limits: config.limits }, leftovers);
    for (const plugin of resolved) {
      let host: PluginHost | undefined = confined.get(plugin.where.index);
      let entries = confinedEntries?.get(plugin.where.index);
      if (host === undefined || entries === undefined) {
        const { inProcessHost } = await lazily("the in-process plugin loader", () => import("@plugboard/hosts/in-process"));
        const { hostedEntries } = await lazily("the plugin host wrapper", () => import("@plugboard/hosts/host"));
        host = await inProcessHost(plugin, { workspace, logger });
        hosts.push(host);
        entries = hostedEntries(host);
      }
      const hosted = host.plugins.find(({ plugin: { name } }) => name === plugin.manifest.name);
      if (hosted === undefined) throw new Error(`the host of ${plugin.manifest.name} does not list it`);
      plugins.push(hosted.plugin);
      loaded.set(plugin.where.index, { grants: plugin.entry.permissions, entries });
      logger.debug(`loaded plugin ${hosted.plugin.name}@${hosted.plugin.version}: ${hosted.plugin.tools.map((t) => t.name).join(", ")}`);
    }
    auditLog = config.audit === undefined ? undefined : openAuditLog(config.audit, config.configPath);
    for (const record of early.splice(0)) auditLog?.connection(record);
    // The sandbox's launcher for MCP servers is loaded only when the config has a server it confines.
    const launcher =
      options.mcpLauncher ??
      (mechanism === undefined || !config.plugins.some((entry) => !isPlugin(entry) && confinesServer(entry))
        ? undefined
        : await confiningLauncher(mechanism, { workspace: workspace.root, configPath: config.configPath, protect, env: options.env ?? process.env, logger, onConnection, limits: config.limits, tallies }));
    mounts = await mountServers(config, { workspace, logger, launcher, elicit: options.elicit, env: options.env ?? process.env });
    // Only the servers our sandbox confines: a launcher given by the caller confines (or not) in its own way.
    if (options.mcpLauncher === undefined && mechanism !== undefined) mounts = await explainingServers(mounts, config, { workspace: workspace.root, protect, refusals, tallies });
    for (const { index, server, entries } of mounts) loaded.set(index, { grants: server.permissions, entries });
    const ordered = [...loaded].sort(([a], [b]) => a - b);
    checkMountedNames(ordered, config);
    checkToolSearch(config, ordered);
    const pinning = await pinTools(lockFileOf(config.configPath), pinnedSources(ordered, config, resolved), options.changedTools, plantedRecord);
    if (options.changedTools === undefined) for (const change of pinning.withheld) logger.warn(withheldLine(change, pinning.lockPath));
    const withheld = new Set(pinning.withheld.map(({ tool }) => tool));
    const offered = (entry: RegistryEntry) => !withheld.has(entry.tool.name);
    // A withheld tool is sent neither at once (tools.pinned) nor found by a search: it is not in the registry.
    const entries = ordered.flatMap(([, load]) => load.entries.filter(offered));
    const toolGrants = new Map(ordered.flatMap(([, load]) => load.entries.filter(offered).map(({ tool }) => [tool.name, load.grants] as const)));
    const registry = new ToolRegistry(entries);
    // A withheld plugin's tools still count as the config's: a hook for one is no mistake of the config.
    checkHooks(config, [...registry.names(), ...found.filter((plugin) => unloaded.has(plugin.manifest.name)).flatMap(({ manifest }) => manifest.tools.map(({ name }) => name))]);
    const runtime = new ToolRuntime(registry, { workspace, logger, policy: config.policy, toolSearch: { ...config.tools, pinned: config.tools.pinned.filter((name) => !withheld.has(name)) }, hooks: config.hooks, results: config.results, ...(auditLog ? { audit: auditLog.write } : {}) });
    const confinedNames = resolved.filter(isConfined).map((plugin) => plugin.manifest.name);
    const servers = mounts.map(({ server }) => server);
    const warmUp = () => {
      for (const host of hosts) host.warm();
    };
    trace("app: built");
    return { config, workspace, registry, runtime, plugins, servers, toolGrants, pinning, codePinning, sandbox: { ...sandbox, confined: confinedNames }, warmUp, close };
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
 * Starts the hosts of the confined plugins at once (plugins that may share one, in one),
 * keyed by config index; if one fails, the others are closed and the first failure in config
 * order is thrown. The host code is imported only when a plugin runs confined; a host mounted
 * from the listing cache starts on its first call (or at `warmUp`).
 */
async function startHosts(
  confined: readonly ResolvedPlugin[],
  mechanism: NonNullable<SandboxState["mechanism"]>,
  context: HostContext,
  warm: readonly string[],
  modules: ConfinementModules | undefined,
): Promise<Map<number, ConfinedHost>> {
  if (confined.length === 0) return new Map();
  const { startConfinedHost } = modules ?? (await confinementModules());
  // The hosts of tools about to be called first: each starts as soon as it is looked at.
  const called = (group: readonly ResolvedPlugin[]) => group.some(({ manifest }) => manifest.tools.some(({ name }) => warm.includes(name)));
  const groups = hostGroups(confined).sort((a, b) => Number(called(b)) - Number(called(a)));
  const started = await allOrNothing(
    groups.map(async (group) => [group, await startConfinedHost(group, mechanism, context, { warm: called(group) })] as const),
    ([, host]) => host.close(),
  );
  return new Map(started.flatMap(([group, host]) => group.map((plugin) => [plugin.where.index, host] as const)));
}

/**
 * The confined plugins grouped by host. Plugins share a host only when neither could gain
 * from it: the same grants (no right one lacks) and the same publisher (no code one would
 * not already trust). The only publisher known here is Plugboard itself: an installed
 * package of the `@plugboard` npm scope, which only the project can publish to. Every other
 * plugin — a `path` entry, or another scope's package — has a host of its own, and so has a
 * plugin whose `network` is narrowed (its egress proxy names it in each refusal).
 */
export function hostGroups(confined: readonly ResolvedPlugin[]): ResolvedPlugin[][] {
  const groups = new Map<string, ResolvedPlugin[]>();
  for (const plugin of confined) {
    const firstParty = plugin.origin !== "path" && plugin.manifest.name.startsWith("@plugboard/") && plugin.entry.network === undefined;
    const key = firstParty ? `first-party ${[...new Set(plugin.entry.permissions)].sort().join(" ")}` : `entry ${plugin.where.index}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [plugin]);
    else group.push(plugin);
  }
  return [...groups.values()];
}

/** How results of plugins that may write the workspace end with what their call left behind (leftovers.ts). */
interface LeftoverReporting {
  readonly watch: LeftoverWatch;
  readonly handle: LeftoverHandler;
  readonly report: typeof import("@plugboard/hosts/leftovers").reportingLeftovers | undefined;
}

/**
 * The registry entries of each confined plugin, by config index, each result ending with its
 * sandbox refusal's hint, and, for a plugin that may write the workspace, with what its call
 * left behind.
 */
async function explainedEntries(
  confined: ReadonlyMap<number, ConfinedHost>,
  resolved: readonly ResolvedPlugin[],
  { workspace, refusals, limits }: { workspace: string; refusals: NetworkRefusals; limits: Limits },
  leftovers: LeftoverReporting | undefined,
): Promise<Map<number, RegistryEntry[]>> {
  const [{ hostedEntries }, { explainingRefusals }] = await Promise.all([
    lazily("the plugin host wrapper", () => import("@plugboard/hosts/host")),
    lazily("the sandbox's refusal hints", () => import("@plugboard/hosts/refusal-hint")),
  ]);
  const byName = new Map(resolved.map((plugin) => [plugin.manifest.name, plugin] as const));
  const entries = new Map<number, RegistryEntry[]>();
  for (const host of new Set(confined.values())) {
    for (const entry of hostedEntries(host)) {
      const plugin = entry.owner === undefined ? undefined : byName.get(entry.owner);
      if (plugin === undefined) continue;
      const context = {
        plugin: plugin.manifest.name,
        grants: plugin.entry.permissions,
        offered: [...plugin.manifest.permissions, ...plugin.manifest.optionalPermissions],
        workspace,
        get protect() {
          return host.protected();
        },
        configPath: plugin.where.configPath,
        ...narrowing(plugin.entry, refusals, plugin.manifest.name),
        limits: { values: limits, counts: host.limits },
      };
      const list = entries.get(plugin.where.index) ?? [];
      const explained = explainingRefusals(entry, context);
      const writes = plugin.entry.permissions.includes("fs.write");
      // The refusal's hint first, then what the call left behind: the result's last line.
      list.push(writes && leftovers?.report !== undefined ? leftovers.report(explained, plugin.manifest.name, leftovers.watch, leftovers.handle) : explained);
      entries.set(plugin.where.index, list);
    }
  }
  return entries;
}

/** Confines each stdio MCP server with its entry's grants. */
async function confiningLauncher(
  mechanism: NonNullable<SandboxState["mechanism"]>,
  app: {
    workspace: string;
    configPath: string;
    protect: () => readonly ProtectedPath[];
    env: Readonly<Record<string, string | undefined>>;
    logger: Logger;
    onConnection: (record: EgressRecord) => void;
    limits: Limits;
    tallies: ServerTallies;
  },
): Promise<McpLauncher> {
  const { confineServer, serverCacheRoot } = await lazily("the sandbox for MCP servers", () => import("@plugboard/hosts/confine-server"));
  const cacheRoot = serverCacheRoot(app.env);
  const warn = (message: string) => app.logger.warn(message);
  return (launch, entry) =>
    confinesServer(entry)
      ? confineServer(
          launch,
          {
            name: entry.name,
            grants: entry.permissions,
            ...(entry.network === undefined ? {} : { network: entry.network }),
            onConnection: app.onConnection,
            workspace: app.workspace,
            configPath: app.configPath,
            protect: app.protect(),
            cacheRoot,
            warn,
            limits: { values: app.limits, tally: app.tallies.of(entry.name) },
          },
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
  app: { workspace: string; protect: () => readonly ProtectedPath[]; refusals: NetworkRefusals; tallies: ServerTallies },
): Promise<(ServerMount & { index: number })[]> {
  const isConfined = ({ index }: { index: number }) => {
    const entry = config.plugins[index];
    return entry !== undefined && !isPlugin(entry) && confinesServer(entry);
  };
  if (!mounts.some(isConfined)) return [...mounts];
  const { explainingRefusals } = await lazily("the sandbox's refusal hints", () => import("@plugboard/hosts/refusal-hint"));
  return mounts.map((mount) => {
    const entry = config.plugins[mount.index];
    if (!isConfined(mount) || entry === undefined) return mount;
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
      ...narrowing(entry, app.refusals, mount.server.name),
      limits: { values: config.limits, counts: app.tallies.of(mount.server.name) },
    };
    return { ...mount, entries: mount.entries.map((entry) => explainingRefusals(entry, context)) };
  });
}

/** Each confined server's `LimitTally`, by its entry's name. */
class ServerTallies {
  readonly #byName = new Map<string, LimitTally>();

  of(name: string): LimitTally {
    let tally = this.#byName.get(name);
    if (tally === undefined) {
      tally = new LimitTally();
      this.#byName.set(name, tally);
    }
    return tally;
  }
}

/** A refusal context's view of an entry's narrowed `network` grant: its list, and what its proxy refused. */
function narrowing(entry: PluginEntry | McpEntry, refusals: NetworkRefusals, name: string): Pick<RefusalContext, "network" | "refusedHosts"> {
  if (entry.network === undefined || !entry.permissions.includes("network")) return {};
  return { network: entry.network, refusedHosts: (since) => refusals.since(name, since) };
}

/** What an app with confined plugins loads: the hosts and the protected paths (each start finds them as they are then). */
interface ConfinementModules {
  readonly startConfinedHost: typeof import("@plugboard/hosts/confined").startConfinedHost;
  readonly protectedPaths: typeof import("@plugboard/hosts/protected-paths").protectedPaths;
  readonly codeProtections: typeof import("@plugboard/hosts/code-protection").codeProtections;
  readonly LeftoverWatch: typeof import("@plugboard/hosts/leftovers").LeftoverWatch;
  readonly reportingLeftovers: typeof import("@plugboard/hosts/leftovers").reportingLeftovers;
  readonly WorkspaceWalker: typeof import("@plugboard/hosts/workspace-scan").WorkspaceWalker;
}

/**
 * The confinement's modules, loaded only when something may run confined (while the
 * plugins are resolved): the protected paths are computed at each host or server start, so
 * that one created since the app started (`.git/hooks/` made, the audit log created) is
 * protected from the next start on.
 */
async function confinementModules(): Promise<ConfinementModules> {
  const [{ startConfinedHost }, { protectedPaths }, { codeProtections }, { LeftoverWatch, reportingLeftovers }, { WorkspaceWalker }] = await Promise.all([
    lazily("the confined plugin hosts", () => import("@plugboard/hosts/confined")),
    lazily("the protected paths", () => import("@plugboard/hosts/protected-paths")),
    lazily("the protected code", () => import("@plugboard/hosts/code-protection")),
    lazily("the after-call look for what calls leave behind", () => import("@plugboard/hosts/leftovers")),
    lazily("the walk for repositories and other tools' files", () => import("@plugboard/hosts/workspace-scan")),
  ]);
  return { startConfinedHost, protectedPaths, codeProtections, LeftoverWatch, reportingLeftovers, WorkspaceWalker };
}

/**
 * The plugins and servers whose tools are pinned: every mounted MCP server, and every
 * installed plugin outside the `@plugboard` npm scope (which only the project publishes to,
 * and whose plugins ship with the CLI). A `path` plugin is the config's own code: not pinned.
 */
function pinnedSources(ordered: readonly [number, { entries: readonly RegistryEntry[] }][], config: AppConfig, resolved: readonly ResolvedPlugin[]): PinnedSource[] {
  const plugins = new Map(resolved.map((plugin) => [plugin.where.index, plugin] as const));
  return ordered.flatMap(([index, { entries }]) => {
    const entry = config.plugins[index];
    if (entry !== undefined && !isPlugin(entry)) return [{ name: entry.name, entries }];
    const plugin = plugins.get(index);
    return plugin !== undefined && isThirdParty(plugin) ? [{ name: plugin.manifest.name, entries }] : [];
  });
}

/** An installed plugin outside the `@plugboard` scope: its tools are pinned. */
function isThirdParty(plugin: ResolvedPlugin): boolean {
  return plugin.origin !== "path" && !plugin.manifest.name.startsWith("@plugboard/");
}

function isPlugin(entry: PluginEntry | McpEntry): entry is PluginEntry {
  return !("mcp" in entry);
}

/** `.plugboard/results/` made in the workspace; when it cannot be, large results say so to the model, and the person is warned now. */
function resultsFolder(root: string, logger: Logger): void {
  try {
    prepareResultsFolder(root);
  } catch (error) {
    if (!(error instanceof ResultsFolderError)) throw error;
    logger.warn(`large results cannot be saved: ${error.message}`);
  }
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
export async function openWorkspace(config: AppConfig): Promise<Workspace> {
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

/**
 * A hook entry whose `tool` no enabled tool matches is a mistake (a typo, a plugin left out),
 * and so is a program path that does not exist (which a plugin could otherwise create and
 * have run unconfined): the config is refused.
 */
function checkHooks(config: AppConfig, tools: readonly string[]): void {
  const problems = (["before", "after"] as const).flatMap((phase) =>
    config.hooks[phase].flatMap(({ tool, command: [program = ""] }, index) => [
      ...(tool === undefined || tools.some((name) => wildcardMatch(tool, name))
        ? []
        : [`hooks.${phase}[${index}].tool: no enabled tool matches ${JSON.stringify(tool)} (enabled: ${tools.join(", ") || "none"})`]),
      ...(!program.includes("/") || existsSync(program)
        ? []
        : [`hooks.${phase}[${index}].command: ${program} does not exist (a program's path is relative to the config's folder)`]),
    ]),
  );
  if (problems.length > 0) throw configErrors.invalid(config.configPath, problems);
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
