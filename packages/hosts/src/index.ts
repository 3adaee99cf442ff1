/**
 * `@plugboard/hosts`: where plugins run, each as a `ToolSource` (core's interface, which a
 * mounted MCP server implements too): in the app's process (`openInProcess`) or confined in a
 * sandboxed process of its own (`startConfinedHost`), whose results end with the sandbox's
 * refusal hints and what a call left behind. What a host's grants mean (the sandbox mode, the
 * protected paths, the refusal hints, the confinement of MCP servers) is `@plugboard/sandbox`'s.
 */
export { openInProcess } from "./in-process.ts";
export { type ConfinedHost, type HostContext, type HostListingCache, listingCache, startConfinedHost } from "./confined.ts";
export { listingCacheFolder } from "./listing-cache.ts";
