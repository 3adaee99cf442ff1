/**
 * Changing a config file's `plugins` list as text, so that its comments, key order and
 * layout stay as the person wrote them (jsonc-parser's edits, as VS Code edits settings).
 */
import { applyEdits, type FormattingOptions, modify } from "jsonc-parser";
import { parseJson } from "./json.ts";
import type { Permission } from "./permissions.ts";

/** A `package` entry as `plugboard plugin add` writes it. */
export interface PackageEntry {
  readonly package: string;
  readonly permissions: readonly Permission[];
}

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: "\n" };

/**
 * The config text with `entry` in its `plugins` list: appended, or, when the package is
 * listed already, that entry's permissions replaced. Throws when the text is not a config object.
 *
 * @example addPluginEntry('{ "plugins": [] }', { package: "@acme/plugin-notes", permissions: ["fs.read"] })
 */
export function addPluginEntry(text: string, entry: PackageEntry): string {
  const index = pluginIndex(text, entry.package);
  if (index >= 0) return applyEdits(text, modify(text, ["plugins", index, "permissions"], entry.permissions, { formattingOptions: FORMAT }));
  const edits = modify(text, ["plugins", -1], entry, { formattingOptions: FORMAT, isArrayInsertion: true });
  return applyEdits(text, edits);
}

/** The config text without the `plugins` entry of package `name`; undefined when it lists none. */
export function removePluginEntry(text: string, name: string): string | undefined {
  const index = pluginIndex(text, name);
  if (index < 0) return undefined;
  return applyEdits(text, modify(text, ["plugins", index], undefined, { formattingOptions: FORMAT }));
}

/** The index in `plugins` of the entry for package `name`, or -1. */
function pluginIndex(text: string, name: string): number {
  const parsed = parseJson(text);
  if (!parsed.ok) throw new Error(`not valid JSON: line ${parsed.line}, column ${parsed.column}: ${parsed.problem}`);
  const plugins = typeof parsed.value === "object" && parsed.value !== null ? Reflect.get(parsed.value, "plugins") : undefined;
  if (!Array.isArray(plugins)) return -1;
  return plugins.findIndex((entry: unknown) => typeof entry === "object" && entry !== null && Reflect.get(entry, "package") === name);
}
