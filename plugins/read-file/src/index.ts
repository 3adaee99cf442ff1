/**
 * `@plugboard/plugin-read-file`: the `read_file` tool. Exports the plugin (default) and its
 * `Options` type; the manifest is `@plugboard/plugin-read-file/plugboard.plugin.json`.
 */
import { definePlugin, type Static, Type } from "@plugboard/core";
import { readFileTool } from "./read-file.ts";

/** The options schema: the bootstrap fills in each default, then validates with it. */
const OptionsSchema = Type.Object(
  {
    maxFileBytes: Type.Integer({
      minimum: 1,
      default: 1048576,
      description: "The largest file, in bytes, read without a limit; larger files are read in parts.",
    }),
    maxLineChars: Type.Integer({
      minimum: 1,
      default: 2000,
      description: "Characters shown of one line; the rest of a longer line is cut and counted.",
    }),
    maxOutputChars: Type.Integer({
      minimum: 1,
      default: 100000,
      description: "Characters of lines one read returns; the read stops at the line that would pass it.",
    }),
  },
  { additionalProperties: false },
);

/** Options of the read-file plugin, every default filled in. */
export type Options = Static<typeof OptionsSchema>;

/**
 * The read-file plugin: one tool, `read_file`. Needs the `fs.read` permission.
 *
 * @example { "package": "@plugboard/plugin-read-file", "permissions": ["fs.read"], "options": { "maxFileBytes": 262144 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [readFileTool(options)],
});
