/**
 * What the session's taint follows, decided from each config entry's grants: a plugin granted
 * `network` can read the outside world and send data out, and so can one that runs programs
 * (`process.spawn`) without the sandbox, which would refuse their connections (a `curl` needs no
 * grant there); an MCP server can always send data out, and its results are untrusted unless
 * its entry says `"trust": "trusted"`.
 */
import type { McpEntry, PluginEntry } from "@plugboard/config";
import type { TaintTools } from "@plugboard/runtime";

/** What one entry's tools are to the taint. */
export interface TaintRoles {
  /** Its results are untrusted: they may carry what the outside world wrote. */
  readonly untrusted: boolean;
  /** It can send data out. */
  readonly sendOut: boolean;
}

/** The roles of `entry`'s tools, by its grants and whether it runs `confined` (a plugin) or its `trust` (a server). */
export function taintRoles(entry: PluginEntry | McpEntry, confined: boolean): TaintRoles {
  if ("mcp" in entry) return { untrusted: entry.trust !== "trusted", sendOut: true };
  const network = entry.permissions.includes("network") || (!confined && entry.permissions.includes("process.spawn"));
  return { untrusted: network, sendOut: network };
}

/** The tools the runtime's taint follows: each entry's tool names with the entry's roles. */
export function taintTools(entries: readonly { readonly entry: PluginEntry | McpEntry; readonly confined: boolean; readonly tools: readonly string[] }[]): TaintTools {
  const untrusted: string[] = [];
  const sendOut: string[] = [];
  for (const { entry, confined, tools } of entries) {
    const roles = taintRoles(entry, confined);
    if (roles.untrusted) untrusted.push(...tools);
    if (roles.sendOut) sendOut.push(...tools);
  }
  return { untrusted, sendOut };
}
