/**
 * The glob tool: lists the files matching a pattern, as sorted paths relative to the
 * workspace root, without ever reading or returning anything outside the workspace.
 */
import { realpath, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { defineTool, textResult, Type, type Workspace } from "@plugboard/core";
import type fg from "fast-glob";
import type { Options } from "./index.ts";
import { loadFastGlob } from "./fast-glob.ts";
import { type GlobScope, globScope } from "./glob-scope.ts";

/** The tool name the model sees; the manifest lists the same name. */
export const GLOB = "glob";

/**
 * How one glob tool searches: the plugin's options. `ignore` holds fast-glob patterns never
 * matched nor descended into, relative to the search folder.
 */
export type GlobSettings = Readonly<Options>;

const GlobParams = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      description: 'A glob pattern such as "**/*.ts" or "src/*.{js,json}"; `**` matches any depth.',
    }),
    path: Type.Optional(
      Type.String({ description: "Folder to search from, relative to the workspace root (default: the root)." }),
    ),
  },
  { additionalProperties: false },
);

/** Builds the glob tool. */
export function globTool(settings: GlobSettings) {
  return defineTool({
    name: GLOB,
    description:
      "Find files by glob pattern. Returns matching file paths relative to the workspace root, sorted, " +
      "one per line. Skips .git and node_modules.",
    parameters: GlobParams,
    handler: async ({ pattern, path }, ctx) => {
      const scope = await globScope(ctx.workspace, pattern, path ?? ".");
      const found = await findFiles(ctx.workspace, scope, settings, ctx.signal);
      if (found === undefined) throw ctx.signal.reason;
      return textResult(listing(found.sort(), settings.maxResults));
    },
  });
}

/** Every regular file (or symlink to one inside the workspace) matching; undefined when aborted. */
async function findFiles(
  workspace: Workspace,
  scope: GlobScope,
  settings: GlobSettings,
  signal: AbortSignal,
): Promise<string[] | undefined> {
  const fastGlob = await loadFastGlob();
  const entries = fastGlob.stream(scope.pattern, {
    cwd: scope.cwd,
    dot: settings.dot,
    ignore: [...settings.ignore],
    followSymbolicLinks: false,
    // Symlinked files are kept only when they lead to a file inside; fast-glob's
    // onlyFiles would drop them all, so entries are classified below instead.
    onlyFiles: false,
    objectMode: true,
    suppressErrors: true,
  }) as AsyncIterable<fg.Entry>; // objectMode makes every chunk an Entry
  // Entries are relative to the search folder, which lies inside the workspace, and no
  // symlink is followed while scanning: a regular file's path needs no resolving.
  const base = workspace.relative(scope.cwd);
  const prefix = base === "." ? "" : `${base}/`;
  const found: string[] = [];
  for await (const entry of entries) {
    if (signal.aborted) return undefined;
    if (entry.dirent.isFile()) found.push(prefix + entry.path);
    else if (entry.dirent.isSymbolicLink() && (await isLinkToFileInside(workspace, resolve(scope.cwd, entry.path)))) {
      found.push(prefix + entry.path);
    }
  }
  return signal.aborted ? undefined : found;
}

/** A symlink is listed only when its real target is a file inside the workspace. */
async function isLinkToFileInside(workspace: Workspace, absolute: string): Promise<boolean> {
  const real = await realpath(absolute).catch(() => undefined);
  if (real === undefined || !workspace.contains(real)) return false;
  return (await stat(real).catch(() => undefined))?.isFile() ?? false;
}

function listing(paths: readonly string[], maxResults: number): string {
  if (paths.length === 0) return "(no matches)";
  const shown = paths.slice(0, maxResults).join("\n");
  const more = paths.length - maxResults;
  return more > 0 ? `${shown}\n... (${more} more matches)` : shown;
}
