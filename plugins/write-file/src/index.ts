/**
 * `@plugboard/plugin-write-file`: the `write_file` tool. Exports the plugin (default) and
 * its `Options` type; the manifest is `@plugboard/plugin-write-file/plugboard.plugin.json`.
 */
import { definePlugin, type Static, Type } from "@plugboard/core";
import { writeFileTool } from "./write-file.ts";

/** The options schema: the bootstrap fills in each default, then validates with it. */
const OptionsSchema = Type.Object(
  {
    maxBytes: Type.Integer({ minimum: 1, default: 10485760, description: "The most UTF-8 bytes one write may hold." }),
  },
  { additionalProperties: false },
);

/** Options of the write-file plugin, every default filled in. */
export type Options = Static<typeof OptionsSchema>;

/**
 * The write-file plugin: one tool, `write_file`. Needs the `fs.write` permission.
 *
 * @example { "package": "@plugboard/plugin-write-file", "permissions": ["fs.write"], "options": { "maxBytes": 1048576 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [writeFileTool(options)],
});
