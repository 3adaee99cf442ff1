/**
 * `plugboard check`'s lines on what the person's own tools run in the workspace: each git
 * repository found (its metadata kept read-only to confined plugins), the files other tools
 * run on their own, which of them were made while confined plugins could write the workspace
 * (with what in a repository would run code), and a warning for a `.git` deeper than
 * `"protectDepth"`, which is not protected.
 */
import { relative } from "node:path";
import { PROTECT_DEPTH_RANGE } from "@plugboard/config";
import { createdWhileWritable, plantedRecordFile } from "@plugboard/sandbox/planted-files";
import { codeIn } from "@plugboard/sandbox/git-code";
import { OTHER_TOOLS_FOLDERS, scanWorkspace } from "@plugboard/sandbox/workspace-scan";
import type { StartedApp } from "@plugboard/bootstrap";
import { plural } from "@plugboard/core/internal";

const INDENT = "             ";

/** The lines, under `protected:`; `env` locates the record of when plugins could write. */
export function protectedLines({ config, workspace, sandbox }: StartedApp, env: Readonly<Record<string, string | undefined>>): string[] {
  const root = workspace.root;
  const depth = config.protectDepth;
  const scan = scanWorkspace(root, depth, PROTECT_DEPTH_RANGE.max - depth);
  const record = plantedRecordFile(env);
  const shown = (path: string) => relative(root, path);
  const made = (path: string) => createdWhileWritable(record, path);
  const kept = sandbox.mechanism === undefined ? "not protected: no sandbox is in force" : "read-only to confined plugins";
  const repositories = scan.repositories.map(({ path, folder, metadata }) => {
    const what = folder ? metadata.map((name) => (["config", "config.worktree", "commondir"].includes(name) ? name : `${name}/`)).join(", ") : "a link to a repository elsewhere";
    const runs = codeIn(path, folder);
    const news = made(path) ? `; made while plugins could write the workspace${runs.length === 0 ? "" : `, runs code: ${runs.join(", ")}`}` : "";
    return `${INDENT}${shown(path)}: ${what}${news}`;
  });
  const others = scan.otherTools.map((path) => `${shown(path)}${OTHER_TOOLS_FOLDERS.some((name) => path.endsWith(`/${name}`)) ? "/" : ""}${made(path) ? " (made while plugins could write the workspace)" : ""}`);
  return [
    `  protected: git metadata and other tools' files to ${depth} folder levels deep ("protectDepth"), ${kept}`,
    ...(repositories.length === 0 ? [] : [`${INDENT}git: ${repositories.length} ${plural(repositories.length, "repository", "repositories")}`, ...repositories.map((line) => `  ${line}`)]),
    ...(others.length === 0 ? [] : [`${INDENT}other tools' files: ${others.join(", ")}`]),
    ...scan.deeper.map((path) => `  warning: ${shown(path)} lies deeper than "protectDepth" (${depth}): its hooks and config are not protected; raise "protectDepth" in ${config.configPath} to protect them`),
  ];
}
