/**
 * Where a registry's tools come from and where their calls go: one interface for every source
 * of tools — a plugin in the app's process, a confined plugin's host, a mounted MCP server.
 * Defined here, beside the registry whose entries name it, because every source, the runtime
 * that calls it and the app that assembles them import core, and nothing else of ours is shared
 * by all of them (hosts and mcp do not import each other).
 */
import type { ToolContext, ToolResult } from "./contract.ts";
import type { Permission } from "./permissions.ts";
import type { RegistryEntry } from "./registry.ts";

/** How `close` ends a source. */
export interface CloseOptions {
  /** Wait until nothing of the source is left (its processes, their namespaces). @default true */
  readonly wait?: boolean;
}

/**
 * A grant whose lack made the sandbox refuse a call, exactly what would have allowed it: a
 * permission of the plugin's manifest, hosts for its `"network"` list, or a path for its `"read"` list.
 */
export type MissingGrant = { readonly permission: Permission } | { readonly hosts: readonly string[] } | { readonly read: string };

/** Where a grant goes in a config entry: the key of the list it adds to, and what it adds. */
export type GrantEntry = { readonly key: "permissions"; readonly values: readonly Permission[] } | { readonly key: "network" | "read"; readonly values: readonly string[] };

/**
 * The config entry's list `grant` adds to and what it adds: the permission to `permissions`,
 * the hosts to `network`, the path to `read` — what a prompt shows, a host starts with and a
 * saved grant writes.
 *
 * @example grantEntry({ hosts: ["localhost:4873"] }) // { key: "network", values: ["localhost:4873"] }
 */
export function grantEntry(grant: MissingGrant): GrantEntry {
  if ("permission" in grant) return { key: "permissions", values: [grant.permission] };
  if ("hosts" in grant) return { key: "network", values: grant.hosts };
  return { key: "read", values: [grant.read] };
}

/** How long a grant given to a refused call lasts: that call, the session, or saved to the config too. */
export type GrantScope = "once" | "session" | "saved";

/**
 * A source of tools. The runtime hands each call of one of its `entries` to `call`, once:
 * the source runs the handler where it runs (through `runHandler` when it runs a definition),
 * and decorates the result as only it can (a confined plugin's result ends with the sandbox's
 * refusal hint and what its call left behind).
 */
export interface ToolSource {
  /** Who provides its tools, named in messages: a plugin, the plugins sharing one host, an MCP server's entry. */
  readonly owner: string;
  /** Its tools, in order, each naming its own owner and this source as its `source`. */
  readonly entries: readonly RegistryEntry[];
  /**
   * Runs `tool` (its name as the registry has it) with arguments the registry validated. A
   * handler's `ToolError` and its call's abort are results; anything else it throws is thrown
   * here as it was thrown, for the runtime to wrap in a `PluginError`.
   */
  call(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolResult>;
  /**
   * The grant the sandbox refused the call that returned `result` for lack of, which a person
   * may give it (`callGranted`); a confined source's only.
   */
  missingGrant?(result: ToolResult): MissingGrant | undefined;
  /**
   * Runs a refused call again with `grant` added: for this call only (`once`), or from now on
   * (`session`; `saved` also writes it into the config entry, its comments kept).
   */
  callGranted?(tool: string, args: Record<string, unknown>, ctx: ToolContext, grant: MissingGrant, scope: GrantScope): Promise<ToolResult>;
  /** Gets ready for a first call now, in the background (a confined host not yet started starts). */
  warm(): void;
  /**
   * Ends the source; safe to call twice. Resolves once nothing of it is left, unless `wait` is
   * false (a process about to exit, which ends what is left anyway): then once it is told to end.
   */
  close(options?: CloseOptions): Promise<void>;
}
