export { type LoadedPlugin, loadedPlugin } from "./loaded-plugin.ts";
export { loadPlugin, type PluginLoad } from "./load-plugin.ts";
export { MANIFEST_FILE, type Manifest, type ManifestFile, ManifestSchema, readManifest } from "./manifest.ts";
export { checkOptions } from "./plugin-options.ts";
export { inspectPlugin, type PluginOrigin, type ResolvedPlugin, resolvePlugin } from "./resolve-plugin.ts";
