/**
 * `@plugboard/hosts`: where plugins run. One `PluginHost` interface with two implementations
 * — in the app's process (`inProcessHost`) and confined in a sandboxed process of its own
 * (`startConfinedHost`) — and one wrapper, `hostedEntries`, that makes either a registry's
 * entries. What a host's grants mean (the sandbox mode, the protected paths, the refusal
 * hints, the confinement of MCP servers) is `@plugboard/sandbox`'s.
 */
export { type CloseOptions, type HostCall, type HostedPlugin, type HostedTool, hostedEntries, type PluginHost } from "./host.ts";
export { inProcessHost } from "./in-process.ts";
export { type ConfinedHost, type HostContext, type HostListingCache, listingCache, startConfinedHost } from "./confined.ts";
export { listingCacheFolder } from "./listing-cache.ts";
