/**
 * What `plugin add` and `plugin remove` were given: an npm package (a name, optionally with
 * `@VERSION`), a plugin's folder, or a plugin's packed tarball. Told apart as npm tells them:
 * a path starts with `./`, `../`, `/` or `~/`, or ends in `.tgz` (a name that is not a
 * package name but names something on disk is a path too).
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { MANIFEST_FILE, PlugboardError } from "@plugboard/bootstrap";
import { parseJson } from "@plugboard/config/json";
import { isPackageSpec, packageSpec } from "./app-packages.ts";

export type PluginArgument =
  | { readonly kind: "package"; readonly name: string; readonly spec: string }
  /** `path`: absolute. */
  | { readonly kind: "folder"; readonly path: string }
  | { readonly kind: "tarball"; readonly path: string };

const PATH_LIKE = /^(\.\.?|~)(\/|$)|^\//;
const TARBALL = /\.(tgz|tar\.gz)$/;

/** `text` as given on the command line in `cwd`; `home` expands `~`. */
export function pluginArgument(text: string, cwd: string, home: string | undefined): PluginArgument {
  const path = resolve(cwd, home !== undefined && /^~(\/|$)/.test(text) ? `${home}${text.slice(1)}` : text);
  if (TARBALL.test(text)) return { kind: "tarball", path };
  if (PATH_LIKE.test(text) || (!isPackageSpec(text) && existsSync(path))) return { kind: "folder", path };
  if (!isPackageSpec(text)) {
    throw new PlugboardError(
      "USAGE",
      `'${text}' is not an npm package name (such as @acme/plugboard-plugin-notes, optionally with @VERSION), nor a path: give a plugin's folder or tarball by its path (./my-plugin, ./my-plugin-1.0.0.tgz).`,
    );
  }
  return { kind: "package", ...packageSpec(text), spec: text };
}

/** Throws, with the fix, unless `argument` is a package or an existing plugin folder or tarball. */
export function checkAddable(argument: PluginArgument, given: string): void {
  if (argument.kind === "package") return;
  const info = statSync(argument.path, { throwIfNoEntry: false });
  const what = given === argument.path ? given : `${given} (${argument.path})`;
  if (info === undefined) throw notAPlugin(`${what} does not exist`);
  if (info.isDirectory() && existsSync(join(argument.path, MANIFEST_FILE))) return;
  if (info.isDirectory()) throw notAPlugin(`${what} is a folder but not a plugin's: it has no ${MANIFEST_FILE}`, " (plugboard plugin new NAME makes one)");
  if (info.isFile() && argument.kind === "tarball") return;
  throw notAPlugin(`${what} is neither a plugin's folder nor a tarball (.tgz)`);
}

/**
 * How a config in `configFolder` names the plugin folder `path`: `./REL` inside its folder
 * (the two move together), else the absolute path.
 */
export function entryPath(path: string, configFolder: string): string {
  const inside = relative(configFolder, path);
  if (inside === "") return ".";
  return inside === ".." || inside.startsWith(`..${sep}`) || isAbsolute(inside) ? path : `./${inside}`;
}

/** The config's `path` entries: each as written, and the folder it names. */
export function listedFolders(configText: string, configFolder: string): { readonly written: string; readonly folder: string }[] {
  const parsed = parseJson(configText);
  const plugins = parsed.ok && typeof parsed.value === "object" && parsed.value !== null ? Reflect.get(parsed.value, "plugins") : undefined;
  if (!Array.isArray(plugins)) return [];
  return plugins.flatMap((entry: unknown) => {
    const written = typeof entry === "object" && entry !== null ? Reflect.get(entry, "path") : undefined;
    return typeof written === "string" ? [{ written, folder: resolve(configFolder, written) }] : [];
  });
}

function notAPlugin(problem: string, hint = ""): PlugboardError {
  return new PlugboardError(
    "USAGE",
    `${problem}. Give the folder that holds a plugin's ${MANIFEST_FILE}${hint}, a tarball of one (.tgz, from bun pm pack), or an npm package name.`,
  );
}
