/**
 * Opening the planned sources of tools, all or nothing: the confined plugins' hosts (at once,
 * those of tools about to be called first), the plugins loaded in the app's process (in config
 * order), the audit log, then the MCP servers (at once). When one fails, every source opened is
 * closed and its error thrown; nothing is left running.
 */
import type { Permission } from "@plugboard/core";
import type { Secret } from "@plugboard/runtime";
import { type CloseOptions, lazily, type MissingGrant, type RegistryEntry, type ToolSource } from "@plugboard/core/internal";
import type { McpEntry } from "@plugboard/config";
import type { ConfinedHost } from "@plugboard/hosts/confined";
import { allOrNothing } from "./all-or-nothing.ts";
import { type AuditLog, openAuditLog } from "./audit-log.ts";
import { type Confinement, prepareConfinement } from "./confinement.ts";
import { confineServers } from "./confined-servers.ts";
import { GrantingServer } from "./granted-server.ts";
import { type MountedServer, mountServer } from "./mount-server.ts";
import { saveGrant } from "./saved-grants.ts";
import type { Plan } from "./plan.ts";

/** An entry of the config and the tools its source provides for it. */
export interface Provided {
  /** Its index in the config's `plugins`. */
  readonly index: number;
  /** The plugin's name, or the server entry's. */
  readonly owner: string;
  readonly mcp: boolean;
  /** The permissions the config grants it. */
  readonly grants: readonly Permission[];
  readonly entries: readonly RegistryEntry[];
}

/** The open sources of an app. */
export interface OpenSources {
  /** Each entry's tools, in config order. */
  readonly provided: readonly Provided[];
  /** The mounted servers, in config order. */
  readonly servers: readonly MountedServer[];
  readonly audit: AuditLog | undefined;
  /** The mounted servers' OAuth tokens, for the runtime to keep from the model. */
  readonly secrets: readonly Secret[];
  /** Tells `keep` the secrets the servers learn from now on (an OAuth token refreshed), those learnt since they started first. */
  keepFound(keep: (secrets: readonly Secret[]) => void): void;
  /** Gets every source ready for a first call, in the background. */
  warmUp(): void;
  /** Closes every source, ends the span of confined writers, closes the audit log; safe to call twice. */
  close(options?: CloseOptions): Promise<void>;
}

/** Opens `plan`'s sources; throws the first failure (a plugin's load error, the audit log's, a server's), having closed the others. */
export async function openSources(plan: Plan): Promise<OpenSources> {
  try {
    return await opened(plan);
  } finally {
    // The host about to be called has taken it by now, when it could (it is spawned as its host starts).
    plan.ahead?.close();
  }
}

async function opened(plan: Plan): Promise<OpenSources> {
  const { config, options } = plan;
  const confinement = await prepareConfinement(plan);
  let hosts: ReadonlyMap<number, ConfinedHost>;
  try {
    hosts = confinement === undefined ? new Map() : await startHosts(plan, confinement);
  } catch (error) {
    confinement?.end();
    throw error;
  }
  const confined = [...new Set(hosts.values())];
  confinement?.refreshing(confined);
  const sources: ToolSource[] = [...confined];
  let audit: AuditLog | undefined;
  const close = async (closing?: CloseOptions) => {
    await Promise.all(sources.map((source) => source.close(closing)));
    confinement?.end();
    audit?.close();
  };
  try {
    const provided: Provided[] = [];
    for (const plugin of plan.plugins) {
      const { manifest, where, entry } = plugin;
      let source: ToolSource | undefined = hosts.get(where.index);
      if (source === undefined) {
        const { openInProcess } = await lazily("the in-process plugin loader", () => import("@plugboard/hosts/in-process"));
        source = await openInProcess(plugin, { workspace: plan.workspace, logger: options.logger });
        sources.push(source);
      }
      const entries = source.entries.filter(({ owner }) => owner === manifest.name);
      provided.push({ index: where.index, owner: manifest.name, mcp: false, grants: entry.permissions, entries });
      options.logger.debug(`loaded plugin ${manifest.name}@${manifest.version}: ${manifest.tools.map((tool) => tool.name).join(", ")}`);
    }
    audit = config.audit === undefined ? undefined : openAuditLog(config.audit, config.configPath);
    confinement?.recordTo(audit);
    const found = foundSecrets();
    const mounts = await mountServers(plan, confinement, found.add);
    sources.push(...mounts.map(({ mount }) => mount));
    for (const { index, entry, mount } of mounts) provided.push({ index, owner: entry.name, mcp: true, grants: entry.permissions, entries: mount.entries });
    provided.sort((a, b) => a.index - b.index);
    const warmUp = () => {
      // Before the hosts start in the background: what appears in the workspace from now on is suspect.
      confinement?.writable();
      for (const source of sources) source.warm();
    };
    return { provided, servers: mounts.map(({ server }) => server), secrets: mounts.flatMap(({ secrets }) => secrets), keepFound: found.keep, audit, warmUp, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Starts the hosts of the confined plugins at once (plugins that may share one, in one),
 * keyed by config index; if one fails, the others are closed and the first failure in config
 * order is thrown. A host mounted from the listing cache starts on its first call (or at
 * `warmUp`); one of the tools about to be called (`warm`), at once.
 */
async function startHosts(plan: Plan, confinement: Confinement): Promise<Map<number, ConfinedHost>> {
  if (plan.hostGroups.length === 0) return new Map();
  const warm = plan.options.warm ?? [];
  // Each group's tools about to be called: its host starts as soon as it is looked at (those first), and loads their plugins first.
  const groups = plan.hostGroups
    .map((group) => ({ group, called: group.flatMap(({ manifest }) => manifest.tools.map(({ name }) => name)).filter((name) => warm.includes(name)) }))
    .sort((a, b) => Number(b.called.length > 0) - Number(a.called.length > 0));
  const { startConfinedHost } = confinement.modules;
  const started = await allOrNothing(
    groups.map(async ({ group, called }) => [group, await startConfinedHost(group, confinement.mechanism, confinement.hosts, { warm: called })] as const),
    ([, host]) => host.close(),
  );
  return new Map(started.flatMap(([group, host]) => group.map((plugin) => [plugin.where.index, host] as const)));
}

/**
 * Starts every MCP server of the plan at once; if one fails, the others are closed. A server
 * our sandbox confines is mounted so that a refused call can become a grant (granted-server.ts).
 */
async function mountServers(plan: Plan, confinement: Confinement | undefined, found: (secrets: readonly Secret[]) => void): Promise<{ index: number; entry: McpEntry; server: MountedServer; mount: ToolSource; secrets: readonly Secret[] }[]> {
  if (plan.servers.length === 0) return [];
  const { config, workspace, options } = plan;
  const servers = await confineServers(plan, confinement);
  const { launcher, explain, unseen } = servers;
  const context = { workspace, logger: options.logger, launcher, elicit: options.elicit, env: options.env, unseen, found };
  return allOrNothing(
    plan.servers.map(async ({ index, entry }) => {
      const where = { index, configPath: config.configPath };
      const { server, mount, secrets } = await mountServer(entry, where, context, explain(entry));
      if (explain(entry) === undefined) return { index, entry, server, mount, secrets };
      const grants = {
        missingGrant: servers.missingGrant,
        reopen: async (widened: McpEntry) => {
          servers.confine(widened);
          return (await mountServer(widened, where, context, explain(widened))).mount;
        },
        save: (grant: MissingGrant) => saveGrant({ name: entry.name, configPath: where.configPath, entry }, grant, options.env, options.logger),
      };
      return { index, entry, server, mount: new GrantingServer(mount, entry, grants), secrets };
    }),
    ({ mount }) => mount.close(),
  );
}

/** Secrets learnt after start, held until someone keeps them (the runtime, once it is made), then passed on as they come. */
function foundSecrets(): { add(secrets: readonly Secret[]): void; keep(keeper: (secrets: readonly Secret[]) => void): void } {
  const held: Secret[] = [];
  let keeper: ((secrets: readonly Secret[]) => void) | undefined;
  return {
    add: (secrets) => (keeper === undefined ? void held.push(...secrets) : keeper(secrets)),
    keep(given) {
      keeper = given;
      given(held.splice(0));
    },
  };
}
