/**
 * The word_count tool: counts the lines, words and characters of a UTF-8 text file in the
 * workspace. An example to replace with your own tool; it shows what every tool has.
 */
import { decodeText, defineTool, fileErrors, statFile, textResult, Type } from "@plugboard/core";
import type { Options } from "./index.ts";

/**
 * The parameters: one schema is both what the model sees and what validates each call. For
 * OpenAI's strict mode every property is required (an optional one would be a union with
 * Type.Null()) and the object is closed.
 */
const Params = Type.Object(
  { path: Type.String({ description: "The file, relative to the workspace root." }) },
  { additionalProperties: false },
);

/** Builds the tool with the plugin's options. */
export function wordCountTool({ maxFileBytes }: Readonly<Options>) {
  return defineTool({
    // The name the model sees, and what the tool does, written here only: `plugboard plugin sync`
    // copies the name and the description's first sentence into plugboard.plugin.json.
    name: "word_count",
    description: "Count the lines, words and characters of a UTF-8 text file in the workspace.",
    parameters: Params,
    // Expected failures are thrown as ToolError (core's fileErrors, Workspace.resolve) and reach
    // the model as "Error: …" results; anything else thrown is a bug. Long work should pass
    // ctx.signal to what it waits on, so that a cancelled call stops.
    handler: async ({ path }, ctx) => {
      const absolute = await ctx.workspace.resolve(path);
      const stats = await statFile(absolute, path);
      if (stats === undefined) throw fileErrors.notFound(path);
      if (stats.size > maxFileBytes) throw fileErrors.tooLarge(path, stats.size, maxFileBytes);
      const text = decodeText(await Bun.file(absolute).bytes(), path);
      const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
      const words = text.split(/\s+/).filter((word) => word !== "").length;
      return textResult(`${path}: ${lines} lines, ${words} words, ${text.length} characters`);
    },
  });
}
