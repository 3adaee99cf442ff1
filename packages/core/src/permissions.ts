/**
 * The permissions a plugin can ask for in its manifest and an app can grant in its config.
 * They are part of the contract: a manifest names them, so plugin authors and apps share
 * one list.
 */

/** Every permission, in the order messages list them. */
export const PERMISSIONS = ["fs.read", "fs.write", "process.spawn", "network"] as const;

/** A permission a plugin asks for and a config entry grants. */
export type Permission = (typeof PERMISSIONS)[number];
