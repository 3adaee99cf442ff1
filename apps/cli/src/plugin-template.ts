/**
 * The files of a new plugin package, as `plugboard plugin new` writes them: the template
 * folder `templates/plugin/` — a real plugin package, typechecked and tested in this
 * repository — with its names replaced by the new plugin's.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { PluginNames } from "./plugin-names.ts";

/**
 * The template: a plugin named `my-tool` whose one tool, `my_tool`, is a working example (it
 * reports the lines of a file) that names itself in its texts, so a new plugin's texts and
 * tests carry its own name and a START HERE comment says what to change first.
 */
export const TEMPLATE_DIR = join(import.meta.dir, "../templates/plugin/");

/**
 * Each name the template uses, and the new plugin's name in the same form. Every one is also
 * valid where it stands (a package name, a file name, an identifier), so the template stays a
 * package that typechecks and passes its tests.
 */
const PLACEHOLDERS: Readonly<Record<string, (names: PluginNames) => string>> = {
  "plugboard-plugin-my-tool": (names) => names.packageName,
  "my-tool": (names) => names.shortName,
  my_tool: (names) => names.toolName,
  myTool: (names) => names.camelName,
};

/** Longest first, in one pass, so a replacement is never itself replaced. */
const PLACEHOLDER = new RegExp(Object.keys(PLACEHOLDERS).sort((a, b) => b.length - a.length).join("|"), "g");

/** Files whose name a package manager would drop or obey on the way: stored under another name. */
const RENAMED: Readonly<Record<string, string>> = { _gitignore: ".gitignore" };

/** Every file of the new package, by path relative to its folder, sorted. */
export async function pluginTemplate(names: PluginNames): Promise<Map<string, string>> {
  const entries = await readdir(TEMPLATE_DIR, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(TEMPLATE_DIR, join(entry.parentPath, entry.name)))
    .filter((path) => !path.split("/").includes("node_modules"));
  const files: [string, string][] = [];
  for (const path of paths) {
    const content = await readFile(join(TEMPLATE_DIR, path), "utf8");
    files.push([withNames(RENAMED[path] ?? path, names), withNames(content, names)]);
  }
  return new Map(files.sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** `text` with every placeholder replaced by the plugin's name in that form. */
export function withNames(text: string, names: PluginNames): string {
  return text.replace(PLACEHOLDER, (found) => PLACEHOLDERS[found]?.(names) ?? found);
}
