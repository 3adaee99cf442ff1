/**
 * `@plugboard/plugin-glob`: the `glob` tool. Exports the plugin (default) and its `Options`
 * type; the manifest is `@plugboard/plugin-glob/plugboard.plugin.json`.
 */
import { definePlugin, type Static, Type } from "@plugboard/core";
import { globTool } from "./glob.ts";

/** The options schema: the bootstrap fills in each default, then validates with it. */
const OptionsSchema = Type.Object(
  {
    maxResults: Type.Integer({ minimum: 1, default: 1000, description: "The most paths one call lists." }),
    ignore: Type.Array(Type.String({ minLength: 1 }), {
      default: ["**/.git/**", "**/node_modules/**"],
      description: "Glob patterns never matched nor descended into; replaces the default list.",
    }),
    dot: Type.Boolean({ default: true, description: "Whether * and ** match names that start with a dot." }),
  },
  { additionalProperties: false },
);

/** Options of the glob plugin, every default filled in. */
export type Options = Static<typeof OptionsSchema>;

/**
 * The glob plugin: one tool, `glob`. Needs the `fs.read` permission.
 *
 * @example { "package": "@plugboard/plugin-glob", "permissions": ["fs.read"], "options": { "maxResults": 200 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [globTool(options)],
});
