/**
 * `@plugboard/plugin-edit-file`: the edit_file tool. Exports the plugin (default) and
 * its `Options` type; the manifest is `@plugboard/plugin-edit-file/plugboard.plugin.json`.
 */
import { definePlugin } from "@plugboard/core";
import { type Static, Type } from "@sinclair/typebox";
import { DEFAULT_MAX_FILE_BYTES, editFileTool } from "./edit-file.ts";

// Undeclared keys are refused by the bootstrap, which names the known options.
const OptionsSchema = Type.Object({
  maxFileBytes: Type.Optional(
    Type.Integer({ minimum: 1, default: DEFAULT_MAX_FILE_BYTES, description: "The largest file, in bytes, to edit." }),
  ),
});

/** Options of the edit-file plugin, as written in the config entry. */
export type Options = Static<typeof OptionsSchema>;

/** The edit-file plugin: one tool, `edit_file`. */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [editFileTool({ maxFileBytes: options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES })],
});
