/**
 * The plan, the first stage of building an app: the workspace opened, every plugin located
 * and its manifest checked (nothing of its code runs here), the tool names checked, the code
 * pins applied (a plugin whose files changed is not loaded), the sandbox decided, the confined
 * plugins grouped by the host they share, and the servers our sandbox confines.
 */
import { type Logger, silentLogger, Workspace } from "@plugboard/core";
import { trace } from "@plugboard/core/trace";
import { WorkspaceError } from "@plugboard/core/internal";
import type { AppConfig, McpEntry, PluginEntry } from "@plugboard/config";
import { configErrors } from "@plugboard/config/messages";
import { PlugboardError } from "@plugboard/errors";
import { reservedFolders, reservedGrant } from "@plugboard/sandbox/granted-paths";
import { detectSandbox, type SandboxState, sandboxState } from "@plugboard/sandbox/sandbox-mode";
import type { Mechanism } from "@plugboard/sandbox";
import type { HostAhead } from "@plugboard/hosts/ahead";
import { type ResolvedPlugin, resolvePlugin } from "@plugboard/loader/resolve-plugin";
import type { BuildAppOptions } from "./app-options.ts";
import { allOrNothing } from "./all-or-nothing.ts";
import { checkToolNames } from "./checks.ts";
import type { CodePinning } from "./code-pins.ts";
import { type ConfinementModules, confinementModules } from "./confinement-modules.ts";
import { startAhead } from "./host-ahead.ts";
import { pinPluginCode } from "./pin.ts";

/** What the app runs, and where. */
export interface Plan {
  readonly config: AppConfig;
  /** The options the app is built with, `logger` and `env` given their defaults. */
  readonly options: BuildAppOptions & { readonly logger: Logger; readonly env: Readonly<Record<string, string | undefined>> };
  readonly workspace: Workspace;
  /** Every plugin of the config, located, in config order: those not loaded too (their tools still count as the config's). */
  readonly found: readonly ResolvedPlugin[];
  /** The plugins loaded, in config order: those whose code the lock's pins accept. */
  readonly plugins: readonly ResolvedPlugin[];
  readonly codePinning: CodePinning;
  /** Whether the lock pins anything of this config: a plugin's code, or a server's tools. */
  readonly locks: boolean;
  /** The sandbox in force, and which plugins run confined in their hosts. */
  readonly sandbox: SandboxState & { readonly confined: readonly string[] };
  /** The confined plugins, grouped by the host they share (`hostGroups`). */
  readonly hostGroups: readonly (readonly ResolvedPlugin[])[];
  /** The MCP servers of the config, in config order, and whether our sandbox confines each. */
  readonly servers: readonly { readonly index: number; readonly entry: McpEntry; readonly confined: boolean }[];
  /** Whether any confined process (a plugin's host, a server) may write the workspace. */
  readonly writers: boolean;
  /** The confinement's modules, loading since the plan began; none when the config turns the sandbox off. */
  readonly modules: Promise<ConfinementModules> | undefined;
  /** The confining step started ahead for the host about to be called (host-ahead.ts): ended when the sources are open, if no host took it. */
  readonly ahead: HostAhead | undefined;
}

/** Plans the app of `config`; throws the config's and the plugins' `PlugboardError`s, in config order. */
export async function planApp(config: AppConfig, given: BuildAppOptions): Promise<Plan> {
  const options = { ...given, logger: given.logger ?? silentLogger, env: given.env ?? process.env };
  // A call about to come: the confining step of its host starts first, while the rest of the plan runs.
  const ahead = startAhead(config, options);
  try {
    // With a step started ahead, asked when needed: a step that runs in its namespaces by then stands in for the probe, which then never runs.
    const detecting = detectSandbox(config, options.env, ahead?.inNamespaces, { fresh: options.freshHosts === true });
    // What confined plugins need is loaded meanwhile, unless the config turns the sandbox off.
    const modules = config.sandbox === "off" ? undefined : confinementModules();
    // Awaited only when a mechanism is found: a failure is not left unhandled meanwhile.
    modules?.catch(() => undefined);
    checkPathGrants(config, options);
    const workspace = await openWorkspace(config);
    return await planned(config, options, { workspace, detecting, modules, ahead });
  } catch (error) {
    ahead?.close();
    throw error;
  }
}

/** The rest of `planApp`, once the workspace is open. */
async function planned(config: AppConfig, options: Plan["options"], begun: Pick<Plan, "workspace" | "modules" | "ahead"> & { readonly detecting: () => Promise<Mechanism | undefined> }): Promise<Plan> {
  const { workspace, detecting, modules, ahead } = begun;
  const entries = [...config.plugins.entries()];
  const found = await allOrNothing(entries.flatMap(([index, entry]) => (isPlugin(entry) ? [resolvePlugin(entry, { index, configPath: config.configPath }, options.appFolder)] : [])));
  trace("app: plugins resolved");
  checkToolNames(config, found.map(({ manifest, where }) => ({ index: where.index, name: manifest.name, mcp: false, tools: manifest.tools.map(({ name }) => name) })));
  // Before any plugin's code runs: a plugin whose files differ from what the person accepted is not loaded.
  const { codePinning, pinsCode } = await pinPluginCode(config, found, workspace.root, options);
  trace("app: code pins checked");
  const unloaded = new Set(codePinning.withheld.map(({ source }) => source));
  const plugins = found.filter((plugin) => !unloaded.has(plugin.manifest.name));
  const state = sandboxState(config, options.logger, await detecting());
  trace("app: sandbox detected");
  const confining = state.mechanism !== undefined;
  const confined = plugins.filter((plugin) => confining && plugin.entry.sandbox !== false);
  // Only servers our sandbox confines: a launcher given by the caller confines (or not) in its own way.
  const servers = entries.flatMap(([index, entry]) => (isPlugin(entry) ? [] : [{ index, entry, confined: confining && options.mcpLauncher === undefined && confinesServer(entry) }]));
  const writes = (entry: PluginEntry | McpEntry) => entry.permissions.includes("fs.write");
  return {
    config,
    options,
    workspace,
    found,
    plugins,
    codePinning,
    locks: pinsCode || servers.length > 0,
    sandbox: { ...state, confined: confined.map(({ manifest }) => manifest.name) },
    hostGroups: hostGroups(confined),
    servers,
    writers: confined.some(({ entry }) => writes(entry)) || servers.some(({ entry, confined }) => confined && writes(entry)),
    modules,
    ahead,
  };
}

/**
 * The confined plugins grouped by host. Plugins share a host only when neither could gain
 * from it: the same grants (no right one lacks) and the same publisher (no code one would
 * not already trust). The only publisher known here is Plugboard itself: an installed
 * package of the `@plugboard` npm scope, which only the project can publish to. Every other
 * plugin — a `path` entry, or another scope's package — has a host of its own, and so has a
 * plugin whose `network` is narrowed (its egress proxy names it in each refusal) or that is
 * granted paths besides the workspace (`read`, `write`: no other plugin may see them).
 */
export function hostGroups(confined: readonly ResolvedPlugin[]): ResolvedPlugin[][] {
  const groups = new Map<string, ResolvedPlugin[]>();
  for (const plugin of confined) {
    const own = plugin.entry.network !== undefined || plugin.entry.read !== undefined || plugin.entry.write !== undefined;
    const firstParty = plugin.origin !== "path" && plugin.manifest.name.startsWith("@plugboard/") && !own;
    const key = firstParty ? `first-party ${[...new Set(plugin.entry.permissions)].sort().join(" ")}` : `entry ${plugin.where.index}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [plugin]);
    else group.push(plugin);
  }
  return [...groups.values()];
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

/** Throws `CONFIG_INVALID` for the first `read` or `write` grant that touches the app's install or Plugboard's own folders. */
function checkPathGrants(config: AppConfig, options: Plan["options"]): void {
  const reserved = reservedFolders(options.env, options.appFolder);
  for (const [index, entry] of config.plugins.entries()) {
    for (const key of ["read", "write"] as const) {
      const found = reservedGrant(entry[key] ?? [], reserved);
      if (found !== undefined) throw configErrors.reservedGrant({ path: config.configPath, index, key, grant: found.grant, folder: found.folder });
    }
  }
}

/** Whether our sandbox confines `entry`'s server: a stdio server not marked `"sandbox": false`. */
function confinesServer(entry: McpEntry): boolean {
  return entry.sandbox !== false && "command" in entry.mcp;
}

function isPlugin(entry: PluginEntry | McpEntry): entry is PluginEntry {
  return !("mcp" in entry);
}
