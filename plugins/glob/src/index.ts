/**
 * `@plugboard/plugin-glob`: the glob tool. Exports the plugin (default) and its `Options`
 * type; the manifest is `@plugboard/plugin-glob/plugboard.plugin.json`.
 */
import { definePlugin } from "@plugboard/core";
import { type Static, Type } from "@sinclair/typebox";
import { DEFAULT_IGNORE, DEFAULT_MAX_RESULTS, globTool } from "./glob.ts";

// Undeclared keys are refused by the bootstrap, which names the known options.
const OptionsSchema = Type.Object({
  maxResults: Type.Optional(
    Type.Integer({ minimum: 1, default: DEFAULT_MAX_RESULTS, description: "The most paths one call lists." }),
  ),
  ignore: Type.Optional(
    Type.Array(Type.String({ minLength: 1 }), {
      default: [...DEFAULT_IGNORE],
      description: "Glob patterns never matched nor descended into; replaces the default list.",
    }),
  ),
  dot: Type.Optional(
    Type.Boolean({ default: true, description: "Whether * and ** match names that start with a dot." }),
  ),
});

/** Options of the glob plugin, as written in the config entry. */
export type Options = Static<typeof OptionsSchema>;

/** The glob plugin: one tool, `glob`. */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [
    globTool({
      maxResults: options.maxResults ?? DEFAULT_MAX_RESULTS,
      ignore: options.ignore ?? DEFAULT_IGNORE,
      dot: options.dot ?? true,
    }),
  ],
});
