/**
 * The fenced blocks of a Markdown page, for docs-run.test.ts: each with its language, its
 * text (a list item's indentation taken off) and, when the nearest line above its fence is
 * `<!-- not run: REASON -->`, that reason.
 */

/** One fenced block of a page. */
export interface DocBlock {
  readonly page: string;
  /** The line of its opening fence (from 1). */
  readonly line: number;
  readonly lang: string;
  readonly code: string;
  /** The line above the fence, when it names the file the block is (`` `src/index.ts`: ``). */
  readonly caption: string | undefined;
  readonly notRun: string | undefined;
}

/** The languages whose blocks run: shell commands, console sessions and TypeScript. */
export const SHELL = new Set(["sh", "bash", "shell", "console"]);
export const TYPESCRIPT = new Set(["ts", "typescript"]);

const FENCE = /^(\s*)(`{3,})(\S*)\s*$/;
const NOT_RUN = /^<!-- not run: (.+) -->$/;

/** Every fenced block of `text` (the page `page`), in order. */
export function docBlocks(page: string, text: string): DocBlock[] {
  const lines = text.split("\n");
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i] ?? "");
    if (open === null) continue;
    const [, indent = "", fence = "", lang = ""] = open;
    const end = lines.findIndex((line, j) => j > i && line.trim() === fence);
    if (end < 0) throw new Error(`${page}:${i + 1}: a fence that is never closed`);
    const body = lines.slice(i + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line.trimStart()));
    const above = lines.slice(0, i).findLast((line) => line.trim() !== "")?.trim() ?? "";
    blocks.push({
      page,
      line: i + 1,
      lang,
      code: `${body.join("\n")}\n`,
      caption: /^`([^`]+)`:$/.exec(above)?.[1],
      notRun: NOT_RUN.exec(above)?.[1],
    });
    i = end;
  }
  return blocks;
}

/** A block's name in lists and test titles: its page and first line. */
export function blockName(block: DocBlock): string {
  return `${block.page}: ${block.code.split("\n").find((line) => line.trim() !== "")?.trim() ?? "(empty)"}`;
}

/** A console block's commands (`$ ` lines), each with the output lines the page shows after it. */
export function consoleSteps(code: string): { command: string; shown: string[] }[] {
  const steps: { command: string; shown: string[] }[] = [];
  for (const line of code.trimEnd().split("\n")) {
    if (line.startsWith("$ ")) steps.push({ command: line.slice(2), shown: [] });
    else steps.at(-1)?.shown.push(line);
  }
  return steps;
}
