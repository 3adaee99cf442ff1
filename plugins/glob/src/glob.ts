/**
 * The glob tool: lists the files matching a pattern, as paths relative to the workspace
 * root in code-point order, leaving out what `.gitignore`/`.ignore` files exclude, without
 * ever reading or returning anything outside the workspace.
 */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import { ToolError, Type, type Workspace, defineTool, structuredResult } from "@plugboard/core";
import { firstByCodePoint } from "./code-point-order.ts";
import { scanFiles } from "./glob-scan.ts";
import { type GlobScope, globScope } from "./glob-scope.ts";
import { IgnoreRules, foldersAbove } from "./ignore-rules.ts";
import type { Options } from "./index.ts";

const GlobParams = Type.Object(
  {
    pattern: Type.String({
      minLength: 1,
      description: 'A glob pattern such as "**/*.ts" or "src/*.{js,json}"; `**` matches any depth.',
    }),
    path: Type.Optional(
      Type.String({ description: "Folder to search from, relative to the workspace root (default: the root)." }),
    ),
    include_ignored: Type.Optional(
      Type.Boolean({ description: "Also list files that .gitignore or .ignore files exclude (default: false)." }),
    ),
  },
  { additionalProperties: false },
);

/** What a call found, as data (MCP's `structuredContent`): the paths listed, and how many more matched. */
const GlobOutput = Type.Object(
  {
    matches: Type.Array(Type.String(), { description: "The matching paths listed, relative to the workspace root, sorted." }),
    more: Type.Integer({ minimum: 0, description: "How many more paths matched than the listing holds (maxResults)." }),
  },
  { additionalProperties: false },
);

/**
 * Builds the glob tool with the plugin's options; `settings.ignore` holds fast-glob patterns
 * never matched nor descended into, relative to the search folder.
 */
export function globTool(settings: Readonly<Options>) {
  return defineTool({
    name: "glob",
    description:
      "Find files by glob pattern. Returns matching file paths relative to the workspace root, sorted, " +
      "one per line. Skips .git, node_modules and what .gitignore or .ignore files exclude " +
      "(include_ignored: true lists those too). A pattern naming an existing file literally, " +
      "such as app/[id]/page.tsx, also returns that file.",
    parameters: GlobParams,
    outputSchema: GlobOutput,
    concurrency: "read-only",
    handler: async ({ pattern, path, include_ignored = false }, ctx) => {
      const scope = await globScope(ctx.workspace, pattern, path ?? ".");
      const rules = include_ignored ? undefined : await ignoreRulesAbove(ctx.workspace, scope);
      const scanned = await scanFiles(ctx.workspace, scope, settings, rules, ctx.signal);
      if (scanned === undefined) throw ctx.signal.reason;
      const files = rules === undefined || rules.empty ? scanned : scanned.filter((file) => !rules.ignoresFile(file));
      const literal = await literalFile(ctx.workspace, scope);
      if (literal !== undefined && !files.includes(literal)) files.push(literal);
      const matches = firstByCodePoint(files, settings.maxResults);
      return structuredResult(listing(matches, files.length), { matches, more: files.length - matches.length });
    },
  });
}

/**
 * The rules of the ignore files in the search folders and above them, which the scan does
 * not list; it adds those of each folder it lists. Each ignore file is read once per call.
 */
function ignoreRulesAbove(workspace: Workspace, scope: GlobScope): Promise<IgnoreRules> {
  const searched = scope.bases.map((base) => (base === workspace.root ? "" : workspace.relative(base)));
  return IgnoreRules.read(workspace.root, foldersAbove(searched));
}

/**
 * The pattern read as a plain path (`app/(group)/page.tsx`, `file[1].txt`): that file, as
 * shown to the model, when it exists inside the workspace. Named explicitly, it is listed
 * even where an ignore file excludes it.
 */
async function literalFile(workspace: Workspace, scope: GlobScope): Promise<string | undefined> {
  const absolute = resolve(scope.cwd, scope.pattern);
  if (!workspace.contains(absolute) || absolute === workspace.root) return undefined;
  const real = await workspace.resolve(absolute).catch((error: unknown) => {
    if (error instanceof ToolError) return undefined;
    throw error;
  });
  if (real === undefined || !(await stat(real).catch(() => undefined))?.isFile()) return undefined;
  return workspace.relative(absolute);
}

/** The listing of the first paths, in order, and the count of the rest. */
function listing(first: readonly string[], total: number): string {
  if (total === 0) return "(no matches)";
  const more = total - first.length;
  return more > 0 ? `${first.join("\n")}\n... (${more} more matches)` : first.join("\n");
}
