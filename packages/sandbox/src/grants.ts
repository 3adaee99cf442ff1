/**
 * What each grant means, in words: the permissions (core's list, part of the contract) are
 * a declaration a person consents to, and this is what a message or a prompt tells them each
 * lets a plugin do. What the sandbox makes of each is in this package's README ("What a
 * confined process sees").
 */
import type { Permission } from "@plugboard/core";

/** What each permission lets a plugin do, as a person reads it in an error message. */
export const PERMISSION_EFFECTS: Readonly<Record<Permission, string>> = {
  "fs.read": "read files in the workspace",
  "fs.write": "create, change and delete files in the workspace",
  "process.spawn": "run programs and shell commands",
  network: "open network connections",
};
