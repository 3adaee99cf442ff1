/**
 * Failures a person (not the model) must act on: a bad config, a broken plugin, a workspace
 * that does not exist, an endpoint that refuses, bad usage. Each has a stable code the apps
 * turn into an exit code; the messages themselves are built by the stage that fails (the
 * config's, the loader's, the sandbox's, an MCP mount's).
 */

/** Stable codes for failures a person must act on. */
export type PlugboardErrorCode =
  | "CONFIG_INVALID"
  | "CONFIG_NOT_FOUND"
  | "PLUGIN_NOT_FOUND"
  | "PLUGIN_MANIFEST"
  | "PLUGIN_VERSION"
  | "PLUGIN_CONTRACT"
  | "PLUGIN_PERMISSION"
  | "PLUGIN_TOOLS"
  | "PLUGIN_DUPLICATE_TOOL"
  | "PLUGIN_IMPORT"
  | "PLUGIN_OPTIONS"
  | "PLUGIN_HOST"
  | "SANDBOX_UNAVAILABLE"
  | "WORKSPACE_INVALID"
  | "MODEL_ENDPOINT"
  | "MCP_SERVER"
  | "PLANTED_FILE"
  | "STATE_FOLDER"
  | "OUTPUT"
  | "USAGE";

/**
 * A failure a person must fix. Its message is one readable paragraph that says what to change.
 *
 * @example throw new PlugboardError("USAGE", "--port must be a whole number from 0 to 65535")
 */
export class PlugboardError extends Error {
  override readonly name = "PlugboardError";
  constructor(
    readonly code: PlugboardErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
