/**
 * The permissions a plugin can ask for in its manifest and an app can grant in its config.
 * They are a declaration a person consents to, checked when the app starts.
 */

/** Every permission, in the order messages list them. */
export const PERMISSIONS = ["fs.read", "fs.write", "process.spawn", "network"] as const;

/** A permission a plugin asks for and a config entry grants. */
export type Permission = (typeof PERMISSIONS)[number];

/** What each permission lets a plugin do, as a person reads it in an error message. */
export const PERMISSION_EFFECTS: Readonly<Record<Permission, string>> = {
  "fs.read": "read files in the workspace",
  "fs.write": "create, change and delete files in the workspace",
  "process.spawn": "run programs and shell commands",
  network: "open network connections",
};
