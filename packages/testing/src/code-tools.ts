/**
 * In the harness process: the tools a plugin's code returns, built without the bootstrap, so
 * that a manifest whose tool list is out of date does not stand in the way. `plugboard plugin
 * sync` writes the manifest from them; the `tools` check compares them with the manifest when
 * the bootstrap refused the list.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Plugin } from "@plugboard/core";
import type { ToolListing } from "./harness-protocol.ts";
import { isRecord, readJson } from "./package-check.ts";
import { pluginRuntime } from "./plugin-runtime.ts";

/** Imports the manifest's entry from `pluginDir` and builds its tools with `options` in the current folder as the workspace. */
export async function codeTools(pluginDir: string, options: unknown): Promise<ToolListing> {
  const manifest = await readJson(join(pluginDir, "plugboard.plugin.json"));
  const entry = manifest?.entry;
  if (typeof entry !== "string") return { ok: false, problem: 'its manifest has no "entry" (the module whose default export is the plugin)' };
  let module: unknown;
  try {
    module = await import(pathToFileURL(resolve(pluginDir, entry)).href);
  } catch (error) {
    return { ok: false, problem: `its entry ${entry} failed to load: ${firstLine(error)}` };
  }
  const plugin = isRecord(module) ? module.default : undefined;
  if (!isPlugin(plugin)) {
    return { ok: false, problem: `its entry ${entry} does not export a plugin as its default: make it definePlugin({ options, tools }) from @plugboard/core` };
  }
  try {
    const { tools } = await pluginRuntime(plugin, { root: process.cwd(), options: isRecord(options) ? options : {} });
    return { ok: true, tools: tools.map(({ name, description }) => ({ name, description })) };
  } catch (error) {
    const given = JSON.stringify(options ?? {});
    // TypeBox's AssertError: an option without a default that the options given lack, or a bad value.
    if (error instanceof Error && error.name === "AssertError") return { ok: false, problem: `its options schema refuses the options ${given}: ${firstLine(error)}` };
    return { ok: false, problem: `building its tools (options ${given}) threw: ${firstLine(error)}` };
  }
}

function isPlugin(value: unknown): value is Plugin {
  return isRecord(value) && typeof value.tools === "function" && isRecord(value.options);
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.trim().split("\n")[0] ?? "";
}
