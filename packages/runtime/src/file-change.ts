/**
 * The change a file tool's call would make, for the person asked about it: `write_file`
 * against the file it replaces (read here, through the workspace, as the tool will resolve
 * it) or the head of a new file, `edit_file` its old text against its new one. One diff
 * (`change-rows.ts`) serves both tools, the CLI's prompt and the web card.
 */
import { readFile } from "node:fs/promises";
import { decodeText, statFile, type Workspace } from "@plugboard/core";
import { type ChangeRow, changeRows, type FileChange, headRows } from "./change-rows.ts";

/** A file larger than this is not read to compare: the rows say what it replaces. */
const MAX_COMPARED_BYTES = 1024 * 1024;

/** The change of a `write_file` or `edit_file` call; undefined for other tools, or a path the tool will refuse anyway (outside the workspace, a folder). */
export async function fileChange(tool: string, args: Readonly<Record<string, unknown>>, workspace: Workspace): Promise<FileChange | undefined> {
  const { path, content, old_text: oldText, new_text: newText } = args;
  if (tool === "edit_file" && typeof oldText === "string" && typeof newText === "string") return { kind: "edit", rows: changeRows(oldText, newText) };
  if (tool !== "write_file" || typeof path !== "string" || typeof content !== "string") return undefined;
  const replaced = await replacedText(path, workspace).catch(() => null);
  if (replaced === null) return undefined;
  if (replaced === undefined) return { kind: "create", rows: headRows(content) };
  return { kind: "replace", rows: typeof replaced === "string" ? changeRows(replaced, content) : [replaced, ...headRows(content)] };
}

/** The text of the file at `path`; undefined when there is none; a row saying why it is not compared (too large, binary). */
async function replacedText(path: string, workspace: Workspace): Promise<string | ChangeRow | undefined> {
  const target = await workspace.resolve(path);
  const shown = workspace.relative(target);
  const stats = await statFile(target, shown);
  if (stats === undefined) return undefined;
  if (stats.size > MAX_COMPARED_BYTES) return { kind: "skipped", text: `replaces a file of ${stats.size} bytes, too large to compare` };
  const bytes = await readFile(target);
  try {
    return decodeText(bytes, shown);
  } catch {
    return { kind: "skipped", text: `replaces a binary file of ${stats.size} bytes` };
  }
}
