/**
 * The names of a new plugin, from the NAME given to `plugboard plugin new`: the npm package
 * follows the convention `plugboard-plugin-NAME` (or `@scope/plugboard-plugin-NAME`), so
 * people can find plugins by name and an app's config says what it enables. A scoped
 * `@scope/plugin-NAME`, the form of Plugboard's own packages, is kept as written.
 */
import { UsageError } from "./args.ts";

/** Every name the scaffold uses. */
export interface PluginNames {
  /** The npm package: `plugboard-plugin-notes` or `@acme/plugboard-plugin-notes`. */
  readonly packageName: string;
  /** NAME without scope or prefix: `notes`, `word-count`. */
  readonly shortName: string;
  /** The example tool as the model sees it: `notes`, `word_count`. */
  readonly toolName: string;
  /** For values (the tool's factory is `${camelName}Tool`): `notes`, `wordCount`. */
  readonly camelName: string;
  /** The folder created by default: `plugboard-plugin-notes`. */
  readonly folder: string;
}

/** The prefix every plugin package name carries. */
export const PACKAGE_PREFIX = "plugboard-plugin-";
/** The prefix of a scoped package named as Plugboard's own are (`@plugboard/plugin-bash`). */
const SCOPED_PREFIX = "plugin-";

const SHORT = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
const SCOPE = /^@[a-z0-9][a-z0-9._-]*$/;
/** Keeps the tool name within the 64 characters a tool name may have. */
const MAX_SHORT = 50;

/**
 * Reads NAME: `notes`, `@acme/notes`, or the full `plugboard-plugin-notes` /
 * `@acme/plugboard-plugin-notes` / `@acme/plugin-notes` (`plugin-notes` is `plugboard-plugin-notes`). Throws a `UsageError` (exit 2) for
 * anything else.
 *
 * @example pluginNames("@acme/word-count").packageName // "@acme/plugboard-plugin-word-count"
 * @example pluginNames("@acme/plugin-notes").packageName // "@acme/plugin-notes"
 */
export function pluginNames(name: string): PluginNames {
  const slash = name.indexOf("/");
  const scope = name.startsWith("@") && slash > 0 ? name.slice(0, slash) : undefined;
  const rest = scope === undefined ? name : name.slice(slash + 1);
  // A prefix comes once: `@acme/plugin-notes` is kept as written, `plugin-notes` is `plugboard-plugin-notes`.
  const prefix = [PACKAGE_PREFIX, SCOPED_PREFIX].find((start) => rest.startsWith(start)) ?? "";
  const shortName = rest.slice(prefix.length);
  if ((scope !== undefined && !SCOPE.test(scope)) || !SHORT.test(shortName) || shortName.length > MAX_SHORT) {
    throw new UsageError(
      `NAME must be lower-case letters and digits in words joined by single dashes, starting with a letter, at most ${MAX_SHORT} characters, optionally with a scope (notes, word-count, @acme/notes); got '${name}'`,
      "plugin new",
    );
  }
  const packageBase = `${scope !== undefined && prefix === SCOPED_PREFIX ? SCOPED_PREFIX : PACKAGE_PREFIX}${shortName}`;
  const pascalName = shortName
    .split("-")
    .map((word) => `${word.charAt(0).toUpperCase()}${word.slice(1)}`)
    .join("");
  return {
    packageName: scope === undefined ? packageBase : `${scope}/${packageBase}`,
    shortName,
    toolName: shortName.replaceAll("-", "_"),
    camelName: `${pascalName.charAt(0).toLowerCase()}${pascalName.slice(1)}`,
    folder: packageBase,
  };
}
