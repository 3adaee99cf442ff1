/**
 * The my_tool tool, as `plugboard plugin new` made it: a working example (it reports how many
 * lines a text file in the workspace has) to turn into what my_tool should do.
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
export function myToolTool({ maxFileBytes }: Readonly<Options>) {
  return defineTool({
    // The name the model sees, and what the tool does, written here only: `plugboard plugin sync`
    // copies the name and the description's first sentence into plugboard.plugin.json.
    name: "my_tool",
    // START HERE: say in one sentence what my_tool does (the model reads it to decide when to
    // call it), change the parameters above and the handler below to match, then run
    // `plugboard plugin sync` and update src/my-tool.test.ts.
    description: "Report how many lines a UTF-8 text file in the workspace has (the example my_tool starts from).",
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
      return textResult(`${path}: ${lines} ${lines === 1 ? "line" : "lines"}`);
    },
  });
}
