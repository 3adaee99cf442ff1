/**
 * `@plugboard/plugin-write-file`: the write_file tool. Exports the plugin (default) and
 * its `Options` type; the manifest is `@plugboard/plugin-write-file/plugboard.plugin.json`.
 */
import { definePlugin } from "@plugboard/core";
import { type Static, Type } from "@sinclair/typebox";
import { DEFAULT_MAX_BYTES, writeFileTool } from "./write-file.ts";

// Undeclared keys are refused by the bootstrap, which names the known options.
const OptionsSchema = Type.Object({
  maxBytes: Type.Optional(
    Type.Integer({ minimum: 1, default: DEFAULT_MAX_BYTES, description: "The most UTF-8 bytes one write may hold." }),
  ),
});

/** Options of the write-file plugin, as written in the config entry. */
export type Options = Static<typeof OptionsSchema>;

/** The write-file plugin: one tool, `write_file`. */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [writeFileTool({ maxBytes: options.maxBytes ?? DEFAULT_MAX_BYTES })],
});
