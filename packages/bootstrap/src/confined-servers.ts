/**
 * The confinement of the config's stdio MCP servers: each started through the sandbox with
 * its entry's grants (unless the caller gives its own `mcpLauncher`), and each confined
 * server's results ending with the hint of a sandbox refusal, as a confined plugin's do, the
 * grant it names kept for a person to give (granted-server.ts).
 */
import type { ToolResult } from "@plugboard/core";
import { lazily, type MissingGrant } from "@plugboard/core/internal";
import { PERMISSIONS } from "@plugboard/core";
import type { McpEntry } from "@plugboard/config";
import { LimitTally } from "@plugboard/sandbox/limit-tally";
import type { Confinement } from "./confinement.ts";
import type { McpLauncher } from "./mount-server.ts";
import type { Plan } from "./plan.ts";

/** How the servers start, and what each confined server's results end with. */
export interface ServerConfinement {
  readonly launcher: McpLauncher | undefined;
  /** What a call's result of `entry`'s server ends with; none when our sandbox does not confine it. */
  explain(entry: McpEntry): ((readOnly: boolean) => (result: ToolResult) => ToolResult) | undefined;
  /** The existing files outside the workspace that `entry`'s arguments name and its view lacks, as of its last start. */
  unseen(entry: McpEntry): readonly string[];
  /** The grant whose lack refused the call of a confined server that returned `result`, for a person to give. */
  missingGrant(result: ToolResult): MissingGrant | undefined;
  /** Confines `entry` too: a confined server's entry with a grant a person gave added. */
  confine(entry: McpEntry): void;
}

/** The servers' confinement in `plan`'s app: none but the caller's launcher without a sandbox. */
export async function confineServers(plan: Plan, confinement: Confinement | undefined): Promise<ServerConfinement> {
  const given = plan.options.mcpLauncher;
  const confined = new Set(plan.servers.flatMap(({ entry, confined }) => (confined ? [entry] : [])));
  if (confinement === undefined || confined.size === 0) {
    return { launcher: given, explain: () => undefined, unseen: () => [], missingGrant: () => undefined, confine: () => {} };
  }
  const [{ confineServer, serverCacheRoot }, { narrowedNetwork }, { explainingGrants }] = await Promise.all([
    lazily("the sandbox for MCP servers", () => import("@plugboard/sandbox/confine-server")),
    lazily("the refusal contexts of confined sources", () => import("@plugboard/hosts/confined-source")),
    lazily("the sandbox's refusal hints", () => import("@plugboard/sandbox/refusal-hint")),
  ]);
  const { config, workspace, options } = plan;
  const cacheRoot = serverCacheRoot(options.env);
  const warn = (message: string) => options.logger.warn(message);
  // How often each confined server's limits refused, over its restarts, by its name.
  const tallies = new Map<string, LimitTally>();
  const unseen = new Map<McpEntry, readonly string[]>();
  const missing = new WeakMap<ToolResult, MissingGrant>();
  const tally = (name: string) => {
    let found = tallies.get(name);
    if (found === undefined) {
      found = new LimitTally();
      tallies.set(name, found);
    }
    return found;
  };
  const confining: McpLauncher = (launch, entry) =>
    confined.has(entry)
      ? confineServer(
          launch,
          {
            name: entry.name,
            grants: entry.permissions,
            network: entry.network,
            onConnection: confinement.onConnection,
            workspace: workspace.root,
            configPath: config.configPath,
            protect: confinement.protect(),
            cacheRoot,
            warn,
            limits: { values: config.limits, tally: tally(entry.name) },
            paths: { read: entry.read ?? [], write: entry.write ?? [], reserved: confinement.hosts.reserved },
            unseen: (files) => unseen.set(entry, files),
          },
          confinement.mechanism,
        )
      : launch;
  return {
    launcher: given ?? confining,
    unseen: (entry) => unseen.get(entry) ?? [],
    missingGrant: (result) => missing.get(result),
    confine: (entry) => void confined.add(entry),
    explain(entry) {
      if (!confined.has(entry)) return undefined;
      // A server has no manifest: any permission can be granted to it.
      const context = {
        plugin: entry.name,
        grants: entry.permissions,
        offered: PERMISSIONS,
        workspace: workspace.root,
        configPath: config.configPath,
        get protect() {
          return confinement.protect();
        },
        ...narrowedNetwork(entry, confinement.refusals, entry.name),
        limits: { values: config.limits, counts: tally(entry.name) },
        paths: { read: entry.read ?? [], write: entry.write ?? [] },
        reserved: confinement.hosts.reserved,
        writableWorkspace: plan.writers,
      };
      return (readOnly) => {
        const explain = explainingGrants(context, readOnly);
        return (result) => {
          const { result: explained, grant } = explain(result);
          if (grant !== undefined) missing.set(explained, grant);
          return explained;
        };
      };
    },
  };
}
