/**
 * The edit_file tool: replaces a piece of text in a UTF-8 file. The text must match exactly
 * once (or, failing that, exactly once under one tolerant tier) unless `replace_all` is set,
 * so the model never edits a place it did not mean; the result is written atomically, keeps
 * the file's mode, line endings and byte order mark.
 */
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
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
import { applyReplacements, lf, toLf } from "./line-endings.ts";
import { type Tier, findEdit } from "./match-tiers.ts";

const EditFileParams = Type.Object(
  {
    path: Type.String({ description: "File path, relative to the workspace root (or absolute inside it)." }),
    old_text: Type.String({
      minLength: 1,
      description: "The text to replace, including whitespace and line breaks; not a regular expression.",
    }),
    new_text: Type.String({ description: "The text to put in its place, taken literally." }),
    replace_all: Type.Optional(
      Type.Boolean({ default: false, description: "Replace every match instead of requiring exactly one." }),
    ),
  },
  { additionalProperties: false },
);

/** The texts of edit_file's outcomes that core's shared file errors do not cover. */
const editTexts = {
  same: () => new ToolError("old_text and new_text are the same; nothing would change"),
  notFound: (shown: string) =>
    new ToolError(`old_text not found in ${shown}; read the file again to see its current content`),
  ambiguous: (shown: string, count: number, tier: Tier | undefined) =>
    new ToolError(
      tier === undefined
        ? `old_text matches ${count} places in ${shown}; add surrounding lines to make it unique, or set replace_all to true`
        : `old_text matches ${count} places in ${shown} when ignoring ${tier.ignoring}; add surrounding lines to make it unique`,
    ),
  edited: (shown: string, count: number, tier: Tier | undefined) =>
    `Edited ${shown} (${count} ${count === 1 ? "replacement" : "replacements"})${tier === undefined ? "" : `\nMatched ignoring ${tier.ignoring}`}`,
} as const;

/** Builds the edit_file tool. */
export function editFileTool({ maxFileBytes }: Readonly<Options>) {
  return defineTool({
    name: "edit_file",
    description:
      "Replace text in a UTF-8 text file. old_text must match exactly one place (include enough surrounding " +
      "lines to make it unique) unless replace_all is true. When there is no exact match, whole lines are " +
      "compared ignoring trailing whitespace, then indentation (new_text is re-indented to match), then runs " +
      "of whitespace, each only if exactly one place matches; replace_all uses exact matches only. LF matches " +
      "CRLF; the file keeps its line endings. Read the file first.",
    parameters: EditFileParams,
    // Writes only its path: edits of other files run beside it, edits of the same file in call order.
    concurrency: { writes: ({ path }, workspace) => resolve(workspace.root, path) },
    handler: async ({ path, old_text, new_text, replace_all = false }, ctx) => {
      if (old_text === new_text) throw editTexts.same();
      const target = await ctx.workspace.resolve(path);
      const shown = ctx.workspace.relative(target);
      const stats = await statFile(target, shown);
      if (!stats) throw fileErrors.notFound(shown);
      if (stats.size > maxFileBytes) throw fileErrors.tooLarge(shown, stats.size, maxFileBytes);
      const bytes = await readFile(target).catch((error: unknown) => {
        throw fileSystemError(error, shown);
      });
      const file = toLf(decodeText(bytes, shown));
      const found = findEdit(file.text, lf(old_text), lf(new_text), replace_all);
      if (found.kind === "none") throw editTexts.notFound(shown);
      if (found.kind === "ambiguous") throw editTexts.ambiguous(shown, found.count, found.tier);
      await writeFileAtomic(target, applyReplacements(file, found.replacements)).catch((error: unknown) => {
        throw fileSystemError(error, shown);
      });
      return textResult(editTexts.edited(shown, found.replacements.length, found.tier));
    },
  });
}
