/**
 * plugboard-plugin-my-tool: the my_tool tool. Exports the plugin (default) and its
 * Options type; the manifest is plugboard-plugin-my-tool/plugboard.plugin.json.
 */
import { definePlugin, type Static, Type } from "@plugboard/core";
import { myToolTool } from "./my-tool.ts";

/**
 * The options schema, their one description: the app fills in each field's default, then
 * validates with it, so `tools` receives every option. Unknown keys are refused.
 */
const OptionsSchema = Type.Object(
  {
    maxFileBytes: Type.Integer({ minimum: 1, default: 1048576, description: "The largest file, in bytes, the tool reads." }),
  },
  { additionalProperties: false },
);

/** The plugin's options, every default filled in. */
export type Options = Static<typeof OptionsSchema>;

/**
 * The plugin: one tool, my_tool. Needs the fs.read permission.
 *
 * @example { "package": "plugboard-plugin-my-tool", "permissions": ["fs.read"], "options": { "maxFileBytes": 65536 } }
 */
export default definePlugin({
  options: OptionsSchema,
  tools: (options) => [myToolTool(options)],
});
