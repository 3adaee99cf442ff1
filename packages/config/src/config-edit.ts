/**
 * Changing a config file's `plugins` list as text, so that its comments, key order and
 * layout stay as the person wrote them (jsonc-parser's edits, as VS Code edits settings).
 * An entry is added, or its permissions replaced, as text of its own: jsonc-parser's
 * `modify` would reformat the neighbouring entries written on one line.
 */
import type { Permission } from "@plugboard/core";
import { grantEntry, type MissingGrant } from "@plugboard/core/internal";
import { posix } from "node:path";
import { jsoncTree, parseJson } from "./json.ts";
import type { Edit, FormattingOptions, Node } from "./jsonc.ts";

const { applyEdits, findNodeAtLocation, modify, parseTree } = jsoncTree;

/** A `package` entry as `plugboard plugin add` writes it. */
export interface PackageEntry {
  readonly package: string;
  readonly permissions: readonly Permission[];
}

/** A `path` entry (a plugin's folder, as the config names it) as `plugboard plugin add` writes it. */
export interface PathEntry {
  readonly path: string;
  readonly permissions: readonly Permission[];
}

/** Which entry of `plugins`: the one of a package, or the one whose `path` names that folder (`./p`, `p` and `p/` alike). */
export type EntryKey = { readonly package: string } | { readonly path: string };

/** Which MCP server's entry of `plugins`: the one of that `name`. */
export type ServerKey = { readonly name: string };

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: "\n" };

/**
 * The config text with `entry` in its `plugins` list: appended, or, when the package (or the
 * path, however written: `./p`, `p`, `p/`) is listed already, that entry's permissions replaced. Throws when
 * the text is not a config object.
 *
 * @example addPluginEntry('{ "plugins": [] }', { package: "@acme/plugin-notes", permissions: ["fs.read"] })
 */
export function addPluginEntry(text: string, entry: PackageEntry | PathEntry): string {
  const index = pluginIndex(text, entry);
  const plugins = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true }) ?? emptyNode(), ["plugins"]);
  if (index >= 0) {
    const permissions = findNodeAtLocation(plugins ?? emptyNode(), [index, "permissions"]);
    if (permissions === undefined) return applyEdits(text, modify(text, ["plugins", index, "permissions"], entry.permissions, { formattingOptions: FORMAT }));
    return applyEdits(text, [{ offset: permissions.offset, length: permissions.length, content: inline(entry.permissions) }]);
  }
  const last = plugins?.type === "array" ? plugins.children?.at(-1) : undefined;
  if (plugins === undefined || last === undefined) {
    return applyEdits(text, modify(text, ["plugins", -1], entry, { formattingOptions: FORMAT, isArrayInsertion: true }));
  }
  return applyEdits(text, appendAfter(text, plugins, last, entry));
}

/**
 * The edits that put `entry` after the array's `last` element: on the same line when the
 * array is written on one line, else on a line of its own, indented like `last`.
 */
function appendAfter(text: string, array: Node, last: Node, entry: PackageEntry | PathEntry): Edit[] {
  const [key, value] = "package" in entry ? ["package", entry.package] : ["path", entry.path];
  return appendText(text, array, last, `{ "${key}": ${JSON.stringify(value)}, "permissions": ${inline(entry.permissions)} }`);
}

/** The edits that put `entryText` after the array's `last` element, as `appendAfter` does. */
function appendText(text: string, array: Node, last: Node, entryText: string): Edit[] {
  const end = last.offset + last.length;
  const close = array.offset + array.length - 1;
  // A trailing comma the person wrote stays where it is, after the new entry.
  const comma = /^\s*,/.exec(text.slice(end, close));
  const after = comma === null ? end : end + comma[0].length;
  const lineEnd = text.indexOf("\n", after);
  if (lineEnd < 0 || lineEnd > close) return [{ offset: after, length: 0, content: comma === null ? `, ${entryText}` : ` ${entryText},` }];
  const lineStart = text.lastIndexOf("\n", last.offset) + 1;
  const indent = /^\s*/.exec(text.slice(lineStart, last.offset))?.[0] ?? "";
  const edits: Edit[] = [{ offset: lineEnd, length: 0, content: `\n${indent}${entryText}${comma === null ? "" : ","}` }];
  return comma === null ? [{ offset: end, length: 0, content: "," }, ...edits] : edits;
}

/** A permissions list on one line, as the shipped config writes it: `["fs.read", "fs.write"]`. */
function inline(permissions: readonly Permission[]): string {
  return `[${permissions.map((permission) => JSON.stringify(permission)).join(", ")}]`;
}

function emptyNode(): Node {
  return { type: "null", offset: 0, length: 0 };
}

/** The config text without the `plugins` entry `key` names; undefined when it lists none. */
export function removePluginEntry(text: string, key: EntryKey): string | undefined {
  const index = pluginIndex(text, key);
  if (index < 0) return undefined;
  const plugins = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true }) ?? emptyNode(), ["plugins"]);
  const items = plugins?.children ?? [];
  const item = items[index];
  if (item === undefined) return undefined;
  // The element and one comma beside it, cut from the text itself: jsonc-parser's modify cuts one
  // character too few when the last of several elements on one line goes (`[{…},{…}]` → `[{…}}]`).
  const next = items[index + 1];
  const previous = items[index - 1];
  // The only element: the list becomes `[]`.
  const inside = plugins === undefined ? [item.offset, item.offset + item.length] : [plugins.offset + 1, plugins.offset + plugins.length - 1];
  const [start, end] = next !== undefined ? [item.offset, next.offset] : previous !== undefined ? [previous.offset + previous.length, item.offset + item.length] : inside;
  return `${text.slice(0, start)}${text.slice(end)}`;
}

/** An entry key as the config writes it: `"package": "@acme/notes"`. */
function describeKey(key: EntryKey | ServerKey): string {
  const [field, value] = Object.entries(key)[0] ?? ["", ""];
  return `"${field}": ${JSON.stringify(value)}`;
}

/** The index in `plugins` of the entry `key` names, or -1. */
function pluginIndex(text: string, key: EntryKey | ServerKey): number {
  const parsed = parseJson(text);
  if (!parsed.ok) throw new Error(`not valid JSON: line ${parsed.line}, column ${parsed.column}: ${parsed.problem}`);
  const plugins = typeof parsed.value === "object" && parsed.value !== null ? Reflect.get(parsed.value, "plugins") : undefined;
  if (!Array.isArray(plugins)) return -1;
  const [field, value] = "package" in key ? ["package", key.package] : "path" in key ? ["path", pathForm(key.path)] : ["name", key.name];
  const server = "name" in key;
  return plugins.findIndex((entry: unknown) => {
    if (typeof entry !== "object" || entry === null || ("mcp" in entry) !== server) return false;
    const listed: unknown = Reflect.get(entry, field);
    return field === "path" ? typeof listed === "string" && pathForm(listed) === value : listed === value;
  });
}

/**
 * A `path` entry's folder as its text names it, relative to the config: `./p`, `p` and `p/`
 * name one folder, and an entry edited from one to another while the app runs is the same
 * entry. Lexical only: a link is not followed.
 */
function pathForm(path: string): string {
  const normal = posix.normalize(path);
  return normal.length > 1 ? normal.replace(/\/+$/, "") : normal;
}

/**
 * The config text with `grant` added to the entry of `plugins` that `entry` names, wherever the
 * list holds it now (the file may have been edited since it was read): the permission at the end
 * of its `permissions`, the hosts at the end of its `network` list, the path at the end of its
 * `read` list (a list made when absent); the rest of the text, comments included, as it was.
 * Throws when the list holds no such entry.
 *
 * @example addEntryGrant('{ "plugins": [{ "package": "p", "permissions": ["fs.read"] }] }', { package: "p" }, { permission: "network" })
 */
export function addEntryGrant(text: string, entry: EntryKey | ServerKey, grant: MissingGrant): string {
  const { key, values } = grantEntry(grant);
  const tree = parseTree(text, [], { allowTrailingComma: true }) ?? emptyNode();
  const index = pluginIndex(text, entry);
  if (index < 0) throw new Error(`its entry (${describeKey(entry)}) is no longer in the config's "plugins"`);
  const list = findNodeAtLocation(tree, ["plugins", index, key]);
  const last = list?.type === "array" ? list.children?.at(-1) : undefined;
  if (list === undefined) return applyEdits(text, modify(text, ["plugins", index, key], values, { formattingOptions: FORMAT }));
  const items = values.map((value) => JSON.stringify(value)).join(", ");
  if (last === undefined) return applyEdits(text, [{ offset: list.offset, length: list.length, content: `[${items}]` }]);
  return applyEdits(text, appendText(text, list, last, items));
}

/** A policy rule as an approval saves it. */
export interface RuleEntry {
  readonly tool: string;
  readonly args?: Readonly<Record<string, string>>;
  readonly action: "allow" | "ask" | "deny";
}

/**
 * The config text with `rule` in its `policy.rules` before the rule at `index` (at the end
 * when `index` is past the last or negative), on a line of its own indented like its
 * neighbours (on the same line when the list is written on one); the rest of the text as it was.
 *
 * @example addPolicyRule('{ "policy": { "rules": [] } }', { tool: "bash", args: { command: "git log *" }, action: "allow" }, 0)
 */
export function addPolicyRule(text: string, rule: RuleEntry, index: number): string {
  const rules = findNodeAtLocation(parseTree(text, [], { allowTrailingComma: true }) ?? emptyNode(), ["policy", "rules"]);
  const children = rules?.type === "array" ? (rules.children ?? []) : [];
  const args = Object.entries(rule.args ?? {}).map(([name, pattern]) => `${JSON.stringify(name)}: ${JSON.stringify(pattern)}`);
  const inlineRule = `{ "tool": ${JSON.stringify(rule.tool)}, ${args.length > 0 ? `"args": { ${args.join(", ")} }, ` : ""}"action": ${JSON.stringify(rule.action)} }`;
  const before = index >= 0 ? children[index] : undefined;
  if (rules === undefined || children.length === 0) {
    return applyEdits(text, modify(text, ["policy", "rules", 0], rule, { formattingOptions: FORMAT, isArrayInsertion: true }));
  }
  if (before === undefined) return applyEdits(text, appendText(text, rules, children.at(-1) as Node, inlineRule));
  const lineStart = text.lastIndexOf("\n", before.offset) + 1;
  const indent = text.slice(lineStart, before.offset);
  const ownLine = /^\s*$/.test(indent) && text.lastIndexOf("\n", before.offset) > rules.offset;
  return applyEdits(text, [{ offset: before.offset, length: 0, content: ownLine ? `${inlineRule},\n${indent}` : `${inlineRule}, ` }]);
}
