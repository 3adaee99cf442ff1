/**
 * Building an app from its config, stage by stage: the plan (plan.ts: which entries, confined
 * or not, in which hosts), the sources opened (open-sources.ts), their tools checked
 * (checks.ts) and pinned (pin.ts), then the registry and runtime (assemble-runtime.ts). All
 * or nothing: the first failure throws, nothing is registered and no source is left running.
 */
import type { ToolRegistry, Workspace } from "@plugboard/core";
import { trace } from "@plugboard/core/trace";
import type { CloseOptions } from "@plugboard/core/internal";
import type { AppConfig } from "@plugboard/config";
import type { Permission } from "@plugboard/core";
import { type LoadedPlugin, loadedPlugin } from "@plugboard/loader/loaded-plugin";
import type { SandboxState } from "@plugboard/sandbox/sandbox-mode";
import type { ToolRuntime } from "@plugboard/runtime";
import type { BuildAppOptions } from "./app-options.ts";
import { assembleRuntime } from "./assemble-runtime.ts";
import { checkProvided } from "./checks.ts";
import { argumentNames, checkConfigNames, type KnownTool } from "./config-names.ts";
import type { CodePinning } from "./code-pins.ts";
import type { MountedServer } from "./mount-server.ts";
import { type OpenSources, openSources } from "./open-sources.ts";
import { pinSourceTools } from "./pin.ts";
import type { Pinning } from "./pinned-tools.ts";
import { type Plan, planApp } from "./plan.ts";

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

/**
 * Resolves, validates and loads every plugin, starts every MCP server, then builds
 * registry + runtime; all or nothing (hosts and servers already started are closed on
 * failure). Every manifest is checked before any plugin's code is imported. Confined
 * plugins (see `sandboxState`) load in plugin hosts, started in parallel; the others are
 * imported into this process. The order of `config.plugins` is the order of the tools sent
 * to the model.
 *
 * @example const app = await buildApp(await loadConfig("plugboard.json"));
 */
export async function buildApp(config: AppConfig, options: BuildAppOptions = {}): Promise<App> {
  const plan = await planApp(config, options);
  const opened = await openSources(plan);
  try {
    checkProvided(config, opened.provided);
    checkConfigNames(config, knownTools(plan, opened));
    const pinning = await pinSourceTools(plan, opened.provided);
    const { registry, runtime, toolGrants } = assembleRuntime(plan, opened, pinning);
    const { workspace, codePinning, sandbox } = plan;
    const plugins = plan.plugins.map(loadedPlugin);
    trace("app: built");
    return { config, workspace, registry, runtime, plugins, servers: opened.servers, toolGrants, pinning, codePinning, sandbox, warmUp: opened.warmUp, close: opened.close };
  } catch (error) {
    await opened.close();
    throw error;
  }
}

/** The tools the config may name: every open source's (those its pins will withhold too), and those of plugins not loaded since their code changed. */
function knownTools({ found, plugins }: Plan, opened: OpenSources): KnownTool[] {
  const unloaded = found.filter((plugin) => !plugins.includes(plugin)).flatMap(({ manifest }) => manifest.tools.map(({ name }) => ({ name })));
  return [...opened.provided.flatMap(({ entries }) => entries.map(({ tool }) => ({ name: tool.name, arguments: argumentNames(tool.parameters) }))), ...unloaded];
}
