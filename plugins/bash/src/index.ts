/**
 * `@plugboard/plugin-bash`: the `bash` tool. Exports the plugin (default) and its `Options`
 * type; the manifest is `@plugboard/plugin-bash/plugboard.plugin.json`.
 */
import { definePlugin, type Static, Type } from "@plugboard/core";
import { bashTool } from "./bash.ts";

/** The options schema: the bootstrap fills in each default, then validates with it. */
const OptionsSchema = Type.Object(
  {
    timeoutMs: Type.Integer({
      minimum: 1,
      default: 120000,
      description: "Timeout of a command that does not pass timeout_ms, in milliseconds.",
    }),
    maxTimeoutMs: Type.Integer({
      minimum: 1,
      default: 600000,
      description: "Largest timeout_ms the model may ask for, in milliseconds.",
    }),
    maxOutputChars: Type.Integer({
      minimum: 1,
      default: 50000,
      description: "Characters of output kept (the first and last halves); the rest is cut and counted.",
    }),
  },
  { additionalProperties: false },
);

/** Options of the bash plugin, every default filled in. */
export type Options = Static<typeof OptionsSchema>;

/**
 * The bash plugin: one tool, `bash`. Needs the `process.spawn` permission.
 *
 * @example { "package": "@plugboard/plugin-bash", "permissions": ["process.spawn", "fs.read", "fs.write"], "options": { "timeoutMs": 60000 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [bashTool(options)],
});
