/**
 * `@plugboard/plugin-read-file`: the `read_file` tool. Exports the plugin (default) and its
 * `Options` type; the manifest is `@plugboard/plugin-read-file/plugboard.plugin.json`.
 */
import { definePlugin, OptionsError } from "@plugboard/core";
import { limitsOf, OptionsSchema } from "./options.ts";
import { createReadFileTool } from "./read-file.ts";

export type { Options } from "./options.ts";

/**
 * The read-file plugin: one tool, `read_file`. Needs the `fs.read` permission.
 *
 * @example { "package": "@plugboard/plugin-read-file", "permissions": ["fs.read"], "options": { "maxFileBytes": 262144 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => {
    const limits = limitsOf(options);
    if (limits.maxLineChars > limits.maxOutputChars) {
      throw new OptionsError(
        `maxLineChars (${limits.maxLineChars}) must not exceed maxOutputChars (${limits.maxOutputChars}). Lower maxLineChars or raise maxOutputChars.`,
      );
    }
    return [createReadFileTool(limits)];
  },
});
