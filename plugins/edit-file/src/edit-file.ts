/**
 * The edit_file tool: replaces an exact piece of text in a UTF-8 file. The text must match
 * exactly once unless `replace_all` is set, so the model never edits a place it did not
 * mean; the result is written atomically and keeps the file's mode.
 */
import { readFile } from "node:fs/promises";
import {
  decodeText,
  defineTool,
  fileErrors,
  fileSystemError,
  statFile,
  textResult,
  ToolError,
  Type,
  writeFileAtomic,
} from "@plugboard/core";
import type { Options } from "./index.ts";

/** The tool name the model sees; the manifest lists the same name. */
export const EDIT_FILE = "edit_file";

/** The limits one edit_file tool runs with: the plugin's options. */
export type EditFileSettings = Readonly<Options>;

const EditFileParams = Type.Object(
  {
    path: Type.String({ description: "File path, relative to the workspace root (or absolute inside it)." }),
    old_text: Type.String({
      minLength: 1,
      description: "The exact text to replace, including whitespace and line breaks; not a regular expression.",
    }),
    new_text: Type.String({ description: "The text to put in its place, taken literally." }),
    replace_all: Type.Optional(
      Type.Boolean({ default: false, description: "Replace every match instead of requiring exactly one." }),
    ),
  },
  { additionalProperties: false },
);

/** Builds the edit_file tool. */
export function editFileTool({ maxFileBytes }: EditFileSettings) {
  return defineTool({
    name: EDIT_FILE,
    description:
      "Replace exact text in a UTF-8 text file. old_text must match exactly one place (include enough " +
      "surrounding lines to make it unique) unless replace_all is true. Read the file first.",
    parameters: EditFileParams,
    handler: async ({ path, old_text, new_text, replace_all = false }, ctx) => {
      if (old_text === new_text) throw new ToolError("old_text and new_text are the same; nothing would change");
      const target = await ctx.workspace.resolve(path);
      const shown = ctx.workspace.relative(target);
      const stats = await statFile(target, shown);
      if (!stats) throw fileErrors.notFound(shown);
      if (stats.size > maxFileBytes) throw fileErrors.tooLarge(shown, stats.size, maxFileBytes);
      const bytes = await readFile(target).catch((error: unknown) => {
        throw fileSystemError(error, shown);
      });
      const pieces = decodeText(bytes, shown).split(old_text);
      const count = pieces.length - 1;
      if (count === 0) {
        throw new ToolError(`old_text not found in ${shown}; read the file again to see its current content`);
      }
      if (count > 1 && !replace_all) {
        throw new ToolError(
          `old_text matches ${count} places in ${shown}; add surrounding lines to make it unique, or set replace_all to true`,
        );
      }
      await writeFileAtomic(target, pieces.join(new_text)).catch((error: unknown) => {
        throw fileSystemError(error, shown);
      });
      return textResult(`Edited ${shown} (${count} replacements)`);
    },
  });
}
