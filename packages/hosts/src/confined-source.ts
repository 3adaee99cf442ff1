/**
 * A confined host as a `ToolSource`: its tools as the host listed them (schemas rebuilt from
 * the listing), each call handed to the host process (confined.ts) and its result decorated
 * here, where the app sees the real disk: the sandbox's refusal hint (its refusal-hint.ts), then,
 * for a plugin that may write the workspace, what the call left behind (its leftovers.ts), as the
 * result's last line. The handler runs once, in the host (`runHandler` there). A call refused for
 * lack of a grant a person then gives runs again in a host started with it (a host's view,
 * Landlock rules and egress are fixed when it starts): for that call alone, or from then on.
 */
import { defineTool, type Permission, type TObject, type ToolContext, type ToolResult } from "@plugboard/core";
import { answeredOrCancelled, type CloseOptions, GrantedRunners, type GrantScope, lazilySync, type MissingGrant, type RegistryEntry, type ToolSource } from "@plugboard/core/internal";
import type { ResolvedPlugin } from "@plugboard/loader/resolve-plugin";
import type { Limits, ProtectedPath } from "@plugboard/sandbox";
import type { ReservedFolder } from "@plugboard/sandbox/granted-paths";
import { withGrant } from "@plugboard/sandbox/grants";
import type { LeftoverHandler, LeftoverWatch } from "@plugboard/sandbox/leftovers";
import type { LimitCounts } from "@plugboard/sandbox/limit-tally";
import type { NetworkRefusals } from "@plugboard/sandbox/network-refusals";
import { type ConcurrencyKind, decodeSchema, type HostListing } from "./protocol.ts";
import type { RefusalContext } from "@plugboard/sandbox/refusal-hint";

/** What a confined host's source asks of its process (confined.ts). */
export interface HostConnection {
  /** Its plugins' names, for messages. */
  readonly names: string;
  /** Runs `tool` of `plugin` in the host: its result, or what its handler threw, rebuilt. */
  call(plugin: string, tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
  /** What a call of a `{ writes }` tool writes, as the host's definition names it. */
  writes(tool: string, args: Record<string, unknown>): Promise<string>;
  warm(): void;
  close(options?: CloseOptions): Promise<void>;
  /** The protected paths of the view the host runs (or last ran) in. */
  protected(): readonly ProtectedPath[];
  refresh(): void;
  /** How often its limits have refused, over every start (see limit-tally.ts). */
  readonly limits: LimitCounts;
  /** A new host of `plugin` alone, with the grants its entry says, started on its first call. */
  alone(plugin: ResolvedPlugin): HostConnection;
}

/** What the app gives each confined host for its results' decorations. */
export interface ResultNotes {
  /** The workspace root (a real path). */
  readonly workspace: string;
  /** What the egress proxies of narrowed grants refused (network-refusals.ts). @default none */
  readonly refusals?: NetworkRefusals;
  /** The limits each tree runs with (the config's `"limits"`). @default none */
  readonly limits?: Limits;
  /** Looks, after each call of a plugin that may write the workspace, for what it left behind. @default not looked for */
  readonly leftovers?: { readonly watch: LeftoverWatch; readonly handle: LeftoverHandler };
  /** Plugboard's own folders, never offered as a `"read"` grant (granted-paths.ts). @default unknown: none is offered */
  readonly reserved?: readonly ReservedFolder[];
  /** Writes a grant a person gave a refused call into the plugin's config entry (a `saved` grant). @default not saved */
  readonly saveGrant?: (plugin: ResolvedPlugin, grant: MissingGrant) => Promise<void>;
}

/** A confined host's tools, served by its process. */
export interface ConfinedHost extends ToolSource {
  /**
   * Marks the host's view stale (a call left behind something to protect, see leftovers.ts):
   * the running host is ended before the next call that finds no other call in flight, and a
   * new one starts with the protected paths as they are then.
   */
  refresh(): void;
}

/** A `{ writes }` tool's definition never computes its key itself here: the entry's `writes` asks the host. */
const ASKED_OF_THE_HOST = {
  writes(): string {
    throw new TypeError("what this call writes is asked of its host (RegistryEntry.writes)");
  },
};

/** One tool of the host: its plugin, and how its calls may overlap. */
interface Served {
  readonly plugin: ResolvedPlugin;
  readonly concurrency: ConcurrencyKind;
}

/** The source of `group`'s tools as `listing` lists them, each call run by `host`. */
export function confinedSource(group: readonly ResolvedPlugin[], listing: HostListing, host: HostConnection, notes: ResultNotes): ConfinedHost {
  return new ListedSource(group, listing, host, notes);
}

class ListedSource implements ConfinedHost {
  readonly owner: string;
  readonly entries: readonly RegistryEntry[];
  readonly #host: HostConnection;
  readonly #notes: ResultNotes;
  readonly #served = new Map<string, Served>();
  /** The grant each refused result's call lacked, for a person to give (`callGranted`). */
  readonly #missing = new WeakMap<ToolResult, MissingGrant>();
  /** Plugins a person gave a grant for the rest of the session, by name, with the host that runs them since. */
  readonly #granted = new Map<string, { readonly plugin: ResolvedPlugin; readonly host: HostConnection }>();
  /** The hosts running calls, and those replaced by a host with more grants, ended once their calls answer. */
  readonly #runners = new GrantedRunners<HostConnection>((host) => host.close());
  /** Whether the first host runs one plugin alone: a host started with a grant for it then replaces it. */
  readonly #alone: boolean;

  constructor(group: readonly ResolvedPlugin[], listing: HostListing, host: HostConnection, notes: ResultNotes) {
    this.owner = host.names;
    this.#host = host;
    this.#notes = notes;
    this.#alone = group.length === 1;
    const byName = new Map(group.map((plugin) => [plugin.manifest.name, plugin] as const));
    for (const { manifest } of group) {
      if (!listing.plugins.some(({ name }) => name === manifest.name)) throw new Error(`the host of ${manifest.name} does not list it`);
    }
    this.entries = listing.plugins.flatMap(({ name, tools }) => {
      const plugin = byName.get(name);
      if (plugin === undefined) throw new Error(`a plugin host listed a plugin it was not given: ${name}`);
      return tools.map((listed): RegistryEntry => {
        this.#served.set(listed.name, { plugin, concurrency: listed.concurrency });
        const tool = defineTool({
          name: listed.name,
          description: listed.description,
          parameters: decodeSchema(listed.parameters) as TObject,
          outputSchema: listed.outputSchema === undefined ? undefined : (decodeSchema(listed.outputSchema) as TObject),
          concurrency: listed.concurrency === "writes" ? ASKED_OF_THE_HOST : listed.concurrency,
          // For whoever calls the definition itself: the runtime calls the source.
          handler: (args: Record<string, unknown>, ctx: ToolContext) => this.call(listed.name, args, ctx),
        });
        const writes = listed.concurrency === "writes" ? (args: Record<string, unknown>) => host.writes(listed.name, args) : undefined;
        return { tool, owner: name, source: this, writes };
      });
    });
  }

  /** Runs the call in the host; given up on 2 s after its abort when the host does not answer (`answeredOrCancelled`). */
  call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const served = this.#served.get(tool);
    if (served === undefined) return Promise.reject(new TypeError(`${this.owner} has no tool ${tool}`));
    const granted = this.#granted.get(served.plugin.manifest.name);
    const [plugin, host] = granted === undefined ? [served.plugin, this.#host] : [granted.plugin, granted.host];
    return answeredOrCancelled(this.#runners.running(host, this.#decorated(plugin, host, served.concurrency, tool, args, ctx)), ctx.signal);
  }

  missingGrant(result: ToolResult): MissingGrant | undefined {
    return this.#missing.get(result);
  }

  /**
   * Runs the call in a host started with `grant` too: stopped after it (`once`), or running the
   * plugin's calls from now on, in place of the host before it (ended once its calls answer).
   * Grants for one plugin are taken in turn, each added to those before it.
   */
  async callGranted(tool: string, args: Record<string, unknown>, ctx: ToolContext, grant: MissingGrant, scope: GrantScope): Promise<ToolResult> {
    const served = this.#served.get(tool);
    if (served === undefined) throw new TypeError(`${this.owner} has no tool ${tool}`);
    const name = served.plugin.manifest.name;
    if (scope === "once") {
      const plugin = pluginWithGrant(this.#granted.get(name)?.plugin ?? served.plugin, grant);
      const host = this.#host.alone(plugin);
      try {
        return await answeredOrCancelled(this.#decorated(plugin, host, served.concurrency, tool, args, ctx), ctx.signal);
      } finally {
        await host.close();
      }
    }
    const { plugin, host } = await this.#runners.inTurn(name, async () => {
      const before = this.#granted.get(name);
      const plugin = pluginWithGrant(before?.plugin ?? served.plugin, grant);
      const widened = { plugin, host: this.#host.alone(plugin) };
      this.#granted.set(name, widened);
      const replaced = before?.host ?? (this.#alone ? this.#host : undefined);
      if (replaced !== undefined) void this.#runners.retire(replaced);
      if (scope === "saved") await this.#notes.saveGrant?.(served.plugin, grant);
      return widened;
    });
    return answeredOrCancelled(this.#runners.running(host, this.#decorated(plugin, host, served.concurrency, tool, args, ctx)), ctx.signal);
  }

  warm(): void {
    this.#host.warm();
  }

  async close(options?: CloseOptions): Promise<void> {
    await Promise.all([this.#runners.endRetiring(), ...[this.#host, ...[...this.#granted.values()].map(({ host }) => host)].map((host) => host.close(options))]);
  }

  refresh(): void {
    this.#host.refresh();
    for (const { host } of this.#granted.values()) host.refresh();
  }

  /** The host's result, ending with its refusal's hint, then with what the call left behind. */
  async #decorated(plugin: ResolvedPlugin, host: HostConnection, concurrency: ConcurrencyKind, tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult> {
    const name = plugin.manifest.name;
    const { explainingGrants, reportLeftovers } = decorations();
    const finish = explainingGrants(this.#refusalContext(plugin, host), concurrency === "read-only");
    const { leftovers } = this.#notes;
    const look = leftovers !== undefined && plugin.entry.permissions.includes("fs.write") ? () => reportLeftovers(leftovers.watch, leftovers.handle, { plugin: name, tool, callId: ctx.callId }) : () => undefined;
    let explained: ReturnType<ReturnType<typeof explainingGrants>>;
    try {
      explained = finish(await host.call(name, tool, args, ctx));
    } catch (error) {
      // What the call left is said even when its handler failed.
      look();
      throw error;
    }
    const line = look();
    const { result, grant } = explained;
    const ended = line === undefined ? result : { ...result, content: `${result.content}\n${line}` };
    if (grant !== undefined) this.#missing.set(ended, grant);
    return ended;
  }

  #refusalContext(plugin: ResolvedPlugin, host: HostConnection): RefusalContext {
    const { limits, refusals, workspace } = this.#notes;
    return {
      plugin: plugin.manifest.name,
      grants: plugin.entry.permissions,
      offered: [...plugin.manifest.permissions, ...plugin.manifest.optionalPermissions],
      workspace,
      get protect() {
        return host.protected();
      },
      configPath: plugin.where.configPath,
      ...narrowedNetwork(plugin.entry, refusals, plugin.manifest.name),
      limits: limits === undefined ? undefined : { values: limits, counts: host.limits },
      paths: { read: plugin.entry.read ?? [], write: plugin.entry.write ?? [] },
      reserved: this.#notes.reserved,
      // What plugins that may write leave behind is looked for only when one could from the start.
      writableWorkspace: this.#notes.leftovers !== undefined,
    };
  }
}

/**
 * What decorates a result (the refusal hint, the after-call look), required at the first call:
 * an app that calls nothing (`plugboard tools`) never loads it.
 */
function decorations(): Pick<typeof import("@plugboard/sandbox/refusal-hint"), "explainingGrants"> & Pick<typeof import("@plugboard/sandbox/leftovers"), "reportLeftovers"> {
  const { explainingGrants } = lazilySync("the sandbox's refusal hints", () => require("@plugboard/sandbox/refusal-hint") as typeof import("@plugboard/sandbox/refusal-hint"));
  const { reportLeftovers } = lazilySync("the after-call look for what calls leave behind", () => require("@plugboard/sandbox/leftovers") as typeof import("@plugboard/sandbox/leftovers"));
  return { explainingGrants, reportLeftovers };
}

/** `plugin` with `grant` added to its entry; throws for a permission its manifest does not ask for (none is ever offered). */
function pluginWithGrant(plugin: ResolvedPlugin, grant: MissingGrant): ResolvedPlugin {
  const { entry, manifest } = plugin;
  if ("permission" in grant && ![...manifest.permissions, ...manifest.optionalPermissions].includes(grant.permission)) {
    throw new TypeError(`${manifest.name}'s manifest does not ask for "${grant.permission}"`);
  }
  return { ...plugin, entry: withGrant(entry, grant) };
}

/** A refusal context's view of an entry's narrowed `network` grant: its list, and what its proxy refused. */
export function narrowedNetwork(entry: { readonly network?: readonly string[] | undefined; readonly permissions: readonly Permission[] }, refusals: NetworkRefusals | undefined, name: string): Pick<RefusalContext, "network" | "refusedHosts"> {
  if (entry.network === undefined || !entry.permissions.includes("network")) return {};
  return { network: entry.network, refusedHosts: refusals === undefined ? undefined : (since) => refusals.since(name, since) };
}
