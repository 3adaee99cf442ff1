/**
 * Loading a resolved plugin into this process: import its entry, check the export is a
 * plugin, validate its options, ask it for its tools and check they are exactly the
 * manifest's list. An app imports this module only when a plugin runs in its process (it
 * brings TypeBox's value checks, for the options).
 */
import { type AnyToolDefinition, type Plugin, type PluginContext, PluginOptionsError } from "@plugboard/core";
import type { RegistryEntry } from "@plugboard/core/internal";
import { KindGuard } from "@sinclair/typebox";
import { type LoadedPlugin, loadedPlugin } from "./loaded-plugin.ts";
import { pluginErrors } from "./messages.ts";
import { checkOptions } from "./plugin-options.ts";
import type { ResolvedPlugin } from "./resolve-plugin.ts";

/** What loading one plugin yields: its description and its registry entries, in order. */
export interface PluginLoad {
  readonly plugin: LoadedPlugin;
  readonly entries: readonly RegistryEntry[];
}

/**
 * Imports and checks one plugin. Throws `PLUGIN_IMPORT`, `PLUGIN_OPTIONS` or `PLUGIN_TOOLS`,
 * each naming the plugin.
 */
export async function loadPlugin(resolved: ResolvedPlugin, context: PluginContext): Promise<PluginLoad> {
  const { manifest, where, entryPath } = resolved;
  let module: unknown;
  try {
    module = await importEntry(resolved);
  } catch (error) {
    throw pluginErrors.importFailed(manifest.name, entryPath, error, where);
  }
  const plugin = pluginOf(module);
  if (typeof plugin === "string") throw pluginErrors.notAPlugin(manifest.name, entryPath, plugin, where);

  const options = checkOptions(plugin.options, resolved.entry.options, manifest.name, where);
  let returned: unknown;
  try {
    returned = plugin.tools(options, context);
  } catch (error) {
    // A plugin that checks its options beyond its schema throws core's PluginOptionsError.
    if (error instanceof PluginOptionsError) throw pluginErrors.options(manifest.name, [error.message], where);
    throw pluginErrors.toolsFailed(manifest.name, entryPath, error, where);
  }
  const tools = toolsOf(returned);
  if (typeof tools === "string") throw pluginErrors.toolsInvalid(manifest.name, entryPath, tools, where);

  const expected = manifest.tools.map((tool) => tool.name);
  const actual = tools.map((tool) => tool.name);
  if (expected.join("\n") !== actual.join("\n")) {
    const missing = expected.filter((name) => !actual.includes(name));
    const extra = actual.filter((name) => !expected.includes(name));
    throw pluginErrors.toolsDiffer(manifest.name, { expected, actual, missing, extra }, resolved.manifestPath, where);
  }
  return { plugin: loadedPlugin(resolved), entries: tools.map((tool) => ({ tool, owner: manifest.name })) };
}

/**
 * The plugin's entry module, imported as `loadPlugin` imports it: a process that imports it
 * earlier (a host, while its workspace opens) finds it loaded when the plugin is loaded.
 * Required when Bun can: a process's first `import()` starts its module loader (a host, whose
 * program is CommonJS, waited 10 ms on it for a three-file plugin; `require` took 2), and the
 * module is the same either way. An entry that awaits at its top level cannot be required
 * (Bun refuses it at the await, and the import that follows finishes that same evaluation: it
 * runs once), and a CommonJS entry's exports are not a module's namespace: both are imported,
 * as before, which makes `module.exports` the default export.
 */
export function importEntry(resolved: Pick<ResolvedPlugin, "entryPath">): Promise<unknown> {
  let module: unknown;
  try {
    module = require(resolved.entryPath);
  } catch (error) {
    if (!isAsyncModule(error)) return Promise.reject(error);
  }
  if (isNamespace(module)) return Promise.resolve(module);
  // Bun's own: Node's `node:url` would cost a host's start more than a millisecond to load.
  return import(Bun.pathToFileURL(resolved.entryPath).href);
}

/** Whether `require` refused a module because it awaits at its top level (Bun's words). */
function isAsyncModule(error: unknown): boolean {
  return error instanceof TypeError && error.message.startsWith("require() async module");
}

/** Whether `module` is an ES module's namespace, as `import()` gives it. */
function isNamespace(module: unknown): boolean {
  return typeof module === "object" && module !== null && (module as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === "Module";
}

/** The module's plugin, or what is wrong with its default export. */
function pluginOf(module: unknown): Plugin | string {
  const exported = isObject(module) ? module.default : undefined;
  if (exported === undefined) return "it has no default export";
  if (!isObject(exported)) return `its default export is ${describe(exported)}`;
  if (typeof exported.tools !== "function") return "its default export has no tools function";
  if (!KindGuard.IsSchema(exported.options)) return "its default export's options is not a TypeBox schema";
  return exported as unknown as Plugin;
}

/** The tool definitions, or what is wrong with what `tools` returned. */
function toolsOf(returned: unknown): AnyToolDefinition[] | string {
  if (!Array.isArray(returned)) return `expected an array, got ${describe(returned)}`;
  for (const [index, tool] of returned.entries()) {
    const valid =
      isObject(tool) &&
      typeof tool.name === "string" &&
      typeof tool.description === "string" &&
      isObject(tool.parameters) &&
      typeof tool.handler === "function";
    if (!valid) return `item ${index} is not a tool definition (name, description, parameters, handler)`;
  }
  return returned as AnyToolDefinition[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}
