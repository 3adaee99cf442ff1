/**
 * Building an app from its config: open the workspace, check every plugin's manifest, load
 * the plugins, open the audit log, then build the registry and runtime (with the policy). All or nothing: the first failure
 * throws and nothing is registered.
 */
import { type Logger, silentLogger, ToolRegistry, ToolRuntime, Workspace, WorkspaceError } from "@plugboard/core";
import type { RegistryEntry } from "@plugboard/core/internal";
import { openAuditLog } from "./audit-log.ts";
import type { AppConfig } from "./config.ts";
import { PlugboardError } from "./errors.ts";
import { type LoadedPlugin, loadPlugin } from "./load-plugin.ts";
import { type PluginAt, pluginErrors } from "./messages.ts";
import { type ResolvedPlugin, resolvePlugin } from "./resolve-plugin.ts";

/** A ready app: its config, workspace, registry, runtime and the plugins that provide its tools. */
export interface App {
  config: AppConfig;
  workspace: Workspace;
  registry: ToolRegistry;
  runtime: ToolRuntime;
  /** In config order. */
  plugins: readonly LoadedPlugin[];
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
}

/**
 * Resolves, validates and loads every plugin, then builds registry + runtime; all or
 * nothing. Every manifest is checked before any plugin's code is imported. The order of
 * `config.plugins` is the order of the tools sent to the model.
 *
 * @example const app = await buildApp(await loadConfig("plugboard.json"));
 */
export async function buildApp(config: AppConfig, options: BuildAppOptions = {}): Promise<App> {
  const logger = options.logger ?? silentLogger;
  const workspace = await openWorkspace(config);

  const resolved: ResolvedPlugin[] = [];
  for (const [index, entry] of config.plugins.entries()) {
    resolved.push(await resolvePlugin(entry, { index, configPath: config.configPath }, options.appFolder));
  }
  checkToolNames(resolved, config.configPath);

  const plugins: LoadedPlugin[] = [];
  const entries: RegistryEntry[] = [];
  for (const plugin of resolved) {
    const load = await loadPlugin(plugin, { workspace, logger });
    plugins.push(load.plugin);
    entries.push(...load.entries);
    logger.debug(`loaded plugin ${load.plugin.name}@${load.plugin.version}: ${load.plugin.tools.map((t) => t.name).join(", ")}`);
  }
  const registry = new ToolRegistry(entries);
  const audit = config.audit === undefined ? {} : { audit: openAuditLog(config.audit, config.configPath) };
  const runtime = new ToolRuntime(registry, { workspace, logger, policy: config.policy, ...audit });
  return { config, workspace, registry, runtime, plugins };
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
