/**
 * `@plugboard/hosts`: where plugins run, each as a `ToolSource` (core's interface, which a
 * mounted MCP server implements too): in the app's process (`openInProcess`) or confined in a
 * sandboxed process of its own (`startConfinedHost`), whose results end with the sandbox's
 * refusal hints and what a call left behind. Also what confinement needs from the app: the
 * sandbox mode, the protected paths, and the confinement of MCP servers.
 */
export { openInProcess } from "./in-process.ts";
export { type ConfinedHost, type HostContext, type HostListingCache, listingCache, startConfinedHost } from "./confined.ts";
export { listingCacheFolder } from "./listing-cache.ts";
export { detectSandbox, type SandboxState, sandboxState } from "./sandbox-mode.ts";
