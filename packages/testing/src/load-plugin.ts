/**
 * In the harness process: a plugin loaded through the contract, as an app would load it but
 * with no app — its manifest's entry imported, its default export checked, its options given
 * their defaults and checked, its tools built and registered in the registry of the core it
 * resolves (each schema compiled), whatever its manifest lists.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type AnyToolDefinition, type Plugin, silentLogger, type ToolRegistry, type Workspace } from "@plugboard/core";
import { isRecord, readJson } from "./package-check.ts";
import { type Core, coreFor } from "./plugin-core.ts";
import { pluginOptions } from "./plugin-runtime.ts";

/** A loaded plugin: its tools in its core's registry, in a workspace of that core. */
export interface Loaded {
  readonly core: Core;
  readonly tools: readonly AnyToolDefinition[];
  readonly registry: ToolRegistry;
  readonly workspace: Workspace;
}

/** Why a plugin could not be loaded: where it failed (`import`: its entry threw as it was imported) and what to say. */
export interface LoadFailure {
  readonly phase: "entry" | "import" | "export" | "options" | "tools";
  /** One line, naming the entry or the options. */
  readonly problem: string;
  /** What was thrown, its first line. */
  readonly detail: string;
}

/**
 * Loads the plugin in `pluginDir` with `options`, its workspace at `root` (the current folder).
 * `owner` names the plugin in errors of its tools.
 */
export async function loadPlugin(pluginDir: string, options: unknown, root: string, owner?: string): Promise<Loaded | LoadFailure> {
  const manifest = await readJson(join(pluginDir, "plugboard.plugin.json"));
  const entry = manifest?.entry;
  if (typeof entry !== "string") return failure("entry", 'its manifest has no "entry" (the module whose default export is the plugin)', "");
  const core = await coreFor(pluginDir);
  let module: unknown;
  try {
    module = await import(pathToFileURL(resolve(pluginDir, entry)).href);
  } catch (error) {
    return failure("import", `its entry ${entry} failed to load: ${firstLine(error)}`, firstLine(error));
  }
  const plugin = isRecord(module) ? module.default : undefined;
  if (!isPlugin(plugin)) {
    return failure("export", `its entry ${entry} does not export a plugin as its default: make it definePlugin({ options, tools }) from @plugboard/core`, "");
  }
  const given = JSON.stringify(options ?? {});
  let parsed: unknown;
  try {
    parsed = pluginOptions(plugin, isRecord(options) ? options : {});
  } catch (error) {
    // TypeBox's AssertError: an option without a default that the options given lack, or a bad value.
    return failure("options", `its options schema refuses the options ${given}: ${firstLine(error)}`, firstLine(error));
  }
  const workspace = await core.Workspace.open(root);
  try {
    const tools = plugin.tools(parsed, { workspace, logger: silentLogger });
    if (!Array.isArray(tools)) throw new TypeError("its tools function did not return an array of tool definitions");
    const registry = new core.ToolRegistry(tools.map((tool: AnyToolDefinition) => ({ tool, owner })));
    // Compiled now, as an app's first call would: a schema the compiler refuses is the plugin's to fix.
    for (const name of registry.names()) void registry.get(name)?.check;
    return { core, tools, registry, workspace };
  } catch (error) {
    if (error instanceof core.PluginOptionsError) return failure("options", `it refuses the options ${given}: ${firstLine(error)}`, firstLine(error));
    return failure("tools", `building its tools (options ${given}) threw: ${firstLine(error)}`, firstLine(error));
  }
}

/** Whether `load` failed. */
export function isFailure(load: Loaded | LoadFailure): load is LoadFailure {
  return "phase" in load;
}

function failure(phase: LoadFailure["phase"], problem: string, detail: string): LoadFailure {
  return { phase, problem, detail };
}

function isPlugin(value: unknown): value is Plugin {
  return isRecord(value) && typeof value.tools === "function" && isRecord(value.options);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().split("\n")[0] ?? "";
}
