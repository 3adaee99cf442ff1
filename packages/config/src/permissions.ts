/**
 * The permissions a plugin can ask for in its manifest and an app can grant in its config
 * (the list is core's, part of the contract). They are a declaration a person consents to,
 * checked when the app starts.
 */
import { PERMISSIONS, type Permission } from "@plugboard/core";

export { PERMISSIONS, type Permission };

/** What each permission lets a plugin do, as a person reads it in an error message. */
export const PERMISSION_EFFECTS: Readonly<Record<Permission, string>> = {
  "fs.read": "read files in the workspace",
  "fs.write": "create, change and delete files in the workspace",
  "process.spawn": "run programs and shell commands",
  network: "open network connections",
};
