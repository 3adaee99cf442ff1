/**
 * `@plugboard/plugin-edit-file`: the `edit_file` tool. Exports the plugin (default) and
 * its `Options` type; the manifest is `@plugboard/plugin-edit-file/plugboard.plugin.json`.
 */
import { definePlugin, type Static, Type } from "@plugboard/core";
import { editFileTool } from "./edit-file.ts";

/** The options schema: the bootstrap fills in each default, then validates with it. */
const OptionsSchema = Type.Object(
  {
    maxFileBytes: Type.Integer({ minimum: 1, default: 268435456, description: "The largest file, in bytes, to edit." }),
  },
  { additionalProperties: false },
);

/** Options of the edit-file plugin, every default filled in. */
export type Options = Static<typeof OptionsSchema>;

/**
 * The edit-file plugin: one tool, `edit_file`. Needs the `fs.read` and `fs.write` permissions.
 *
 * @example { "package": "@plugboard/plugin-edit-file", "permissions": ["fs.read", "fs.write"], "options": { "maxFileBytes": 1048576 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [editFileTool(options)],
});
