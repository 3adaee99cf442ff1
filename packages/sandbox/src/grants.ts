/**
 * What each grant means, in words: the permissions (core's list, part of the contract) are
 * a declaration a person consents to, and this is what a message or a prompt tells them each
 * lets a plugin do. What the sandbox makes of each is in this package's README ("What a
 * confined process sees").
 */
import type { Permission } from "@plugboard/core";
import { grantEntry, type MissingGrant } from "@plugboard/core/internal";

/** What each permission lets a plugin do, as a person reads it in an error message. */
export const PERMISSION_EFFECTS: Readonly<Record<Permission, string>> = {
  "fs.read": "read files in the workspace",
  "fs.write": "create, change and delete files in the workspace",
  "process.spawn": "run programs and shell commands",
  network: "open network connections",
};

/** The grants of a config entry, a plugin's or an MCP server's. */
export interface GrantedEntry {
  readonly permissions: readonly Permission[];
  readonly network?: readonly string[] | undefined;
  readonly read?: readonly string[] | undefined;
}

/**
 * `entry` with `grant` added, as a host or server started with it sees it: the permission, the
 * hosts at the end of its `network` list, or the path at the end of its `read` list.
 *
 * @example withGrant({ permissions: ["fs.read"] }, { permission: "network" }) // { permissions: ["fs.read", "network"] }
 */
export function withGrant<E extends GrantedEntry>(entry: E, grant: MissingGrant): E {
  const added = grantEntry(grant);
  if (added.key === "permissions") return { ...entry, permissions: [...new Set([...entry.permissions, ...added.values])] };
  return { ...entry, [added.key]: [...(entry[added.key] ?? []), ...added.values] };
}
