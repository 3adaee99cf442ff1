/**
 * What the kit throws for a person to act on: a folder that is not a plugin's, a file it cannot
 * read or write, a plugin it cannot load to list its tools. One message with the fix, and a
 * stable code (the same codes as the app's, so `plugboard plugin check` and `plugin sync` print
 * it as their own).
 */

/** The kit's error codes. */
export type KitErrorCode = "PLUGIN_NOT_FOUND" | "PLUGIN_MANIFEST" | "PLUGIN_TOOLS";

/** A failure a person fixes; its message says how. */
export class KitError extends Error {
  override readonly name = "KitError";
  constructor(
    readonly code: KitErrorCode,
    message: string,
  ) {
    super(message);
  }
}
