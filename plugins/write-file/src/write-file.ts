/**
 * The write_file tool: replaces a whole file with the model's text, atomically, creating
 * missing parent folders. Reports the real UTF-8 byte count.
 */
import { resolve } from "node:path";
import { defineTool, fileSystemError, statFile, textResult, ToolError, Type, writeFileAtomic } from "@plugboard/core";
import type { Options } from "./index.ts";

const WriteFileParams = Type.Object(
  {
    path: Type.String({ description: "File path, relative to the workspace root (or absolute inside it)." }),
    content: Type.String({ description: "The complete new content of the file, as UTF-8 text." }),
  },
  { additionalProperties: false },
);

/** Builds the write_file tool. */
export function writeFileTool({ maxBytes }: Readonly<Options>) {
  return defineTool({
    name: "write_file",
    description:
      "Create or overwrite a UTF-8 text file with the given content, creating missing parent folders. " +
      "Replaces the whole file; use edit_file to change part of an existing file.",
    parameters: WriteFileParams,
    // Writes only its path: writes of other files run beside it, writes of the same file in call order.
    concurrency: { writes: ({ path }, workspace) => resolve(workspace.root, path) },
    handler: async ({ path, content }, ctx) => {
      const target = await ctx.workspace.resolve(path);
      const shown = ctx.workspace.relative(target);
      const size = Buffer.byteLength(content, "utf8");
      if (size > maxBytes) throw new ToolError(`Content is ${size} bytes, over the limit of ${maxBytes} bytes`);
      await statFile(target, shown);
      const written = await writeFileAtomic(target, content).catch((error: unknown) => {
        throw fileSystemError(error, shown);
      });
      return textResult(`Wrote ${written} bytes to ${shown}`);
    },
  });
}
