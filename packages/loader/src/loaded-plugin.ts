/** What the app knows of a plugin it loaded, in its process or in a plugin host. */
import type { Permission } from "@plugboard/core";
import type { PluginOrigin, ResolvedPlugin } from "./resolve-plugin.ts";

/** A plugin that is loaded and whose tools are ready to register. */
export interface LoadedPlugin {
  name: string;
  version: string;
  /** The real path of the plugin's folder. */
  directory: string;
  /** Where it was found: a config `path`, installed for the config's folder, or shipped with the app. */
  origin: PluginOrigin;
  manifestPath: string;
  /** The contract range its manifest states. */
  contract: string;
  permissions: readonly Permission[];
  tools: readonly { name: string; description: string }[];
}

/** All from its manifest and where it was found, wherever it runs. */
export function loadedPlugin({ manifest, directory, origin, manifestPath }: ResolvedPlugin): LoadedPlugin {
  const { name, version, contract, permissions, tools } = manifest;
  return { name, version, directory, origin, manifestPath, contract, permissions, tools };
}
