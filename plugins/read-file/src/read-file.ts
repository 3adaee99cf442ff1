/**
 * The `read_file` tool: UTF-8 text by lines, `limit` lines from a 1-based `offset`, with the
 * count of lines left after them. Streams the file, so a huge file read with a limit costs
 * only what it returns.
 */
import {
  defineTool,
  fileErrors,
  fileSystemError,
  PluginOptionsError,
  statFile,
  textResult,
  ToolError,
  Type,
} from "@plugboard/core";
import type { Options } from "./index.ts";
import { type LineWindow, readLineWindow } from "./line-window.ts";

const ReadFileParams = Type.Object(
  {
    path: Type.String({ description: "The file, relative to the workspace root." }),
    offset: Type.Optional(Type.Integer({ minimum: 1, description: "1-based number of the first line to return (default 1)." })),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: "How many lines to return (default: to the end of the file)." })),
  },
  { additionalProperties: false },
);

/** The model-facing texts of read_file that core's shared file errors do not cover. */
const readFileTexts = {
  empty: "(empty file)",
  moreLines: (count: number) => `... (${count} more lines)`,
  capped: (count: number, maxChars: number, next: number) =>
    `... (${count} more lines; output capped at ${maxChars} characters, continue with offset ${next})`,
  tooLarge: (shown: string, bytes: number, limit: number) =>
    new ToolError(`${fileErrors.tooLarge(shown, bytes, limit).message}; read it in parts with offset and limit`),
  pastEnd: (shown: string, offset: number, lines: number) =>
    new ToolError(`Offset ${offset} is past the end of ${shown}, which has ${lines} ${lines === 1 ? "line" : "lines"}`),
} as const;

/**
 * Builds the `read_file` tool with the plugin's limits. Throws `PluginOptionsError` when
 * `maxLineChars` exceeds `maxOutputChars`.
 */
export function readFileTool(limits: Readonly<Options>) {
  if (limits.maxLineChars > limits.maxOutputChars) {
    throw new PluginOptionsError(
      `maxLineChars (${limits.maxLineChars}) must not exceed maxOutputChars (${limits.maxOutputChars}). Lower maxLineChars or raise maxOutputChars.`,
    );
  }
  return defineTool({
    name: "read_file",
    description:
      "Read a UTF-8 text file of the workspace by lines, exactly as they are (no line numbers). " +
      "Use offset and limit to read part of a long file; the result ends with `... (N more lines)` when lines remain. " +
      `Files over ${limits.maxFileBytes} bytes must be read with a limit; lines over ${limits.maxLineChars} characters are cut.`,
    parameters: ReadFileParams,
    concurrency: "read-only",
    handler: async ({ path, offset = 1, limit }, ctx) => {
      const target = await ctx.workspace.resolve(path);
      const shown = ctx.workspace.relative(target);
      const stats = await statFile(target, shown);
      if (!stats) throw fileErrors.notFound(shown);
      if (limit === undefined && stats.size > limits.maxFileBytes) {
        throw readFileTexts.tooLarge(shown, stats.size, limits.maxFileBytes);
      }
      const window = await readLineWindow(target, shown, {
        offset,
        limit,
        maxLineChars: limits.maxLineChars,
        maxOutputChars: limits.maxOutputChars,
      }).catch((error: unknown) => {
        throw fileSystemError(error, shown);
      });
      return textResult(render(window, offset, shown, limits.maxOutputChars));
    },
  });
}

function render({ lines, totalLines, capped }: LineWindow, offset: number, shown: string, maxChars: number): string {
  if (totalLines === 0) return readFileTexts.empty;
  if (offset > totalLines) throw readFileTexts.pastEnd(shown, offset, totalLines);
  const next = offset + lines.length;
  const remaining = totalLines - next + 1;
  if (remaining === 0) return lines.join("\n");
  const marker = capped ? readFileTexts.capped(remaining, maxChars, next) : readFileTexts.moreLines(remaining);
  return `${lines.join("\n")}\n${marker}`;
}
