/**
 * `@plugboard/plugin-bash`: the `bash` tool. Exports the plugin (default) and its `Options`
 * type; the manifest is `@plugboard/plugin-bash/plugboard.plugin.json`.
 */
import { definePlugin, OptionsError } from "@plugboard/core";
import { createBashTool } from "./bash.ts";
import { limitsOf, OptionsSchema } from "./options.ts";

export type { Options } from "./options.ts";

/**
 * The bash plugin: one tool, `bash`. Needs the `process.spawn` permission.
 *
 * @example { "package": "@plugboard/plugin-bash", "permissions": ["process.spawn"], "options": { "timeoutMs": 60000 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => {
    const limits = limitsOf(options);
    if (limits.timeoutMs > limits.maxTimeoutMs) {
      throw new OptionsError(
        `timeoutMs (${limits.timeoutMs}) must not exceed maxTimeoutMs (${limits.maxTimeoutMs}). Lower timeoutMs or raise maxTimeoutMs.`,
      );
    }
    return [createBashTool(limits)];
  },
});
