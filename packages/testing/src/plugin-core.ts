/**
 * Which copy of core the harness runs a plugin with. A plugin in its own folder (its
 * dependencies installed) resolves its own `@plugboard/core`, whose `Workspace` and errors its
 * code uses; the harness builds the registry and workspace from that copy too, as an app hands
 * a plugin the core it runs. Without one (a plugin inside this repository resolves the same
 * files anyway), the kit's own.
 */

/** Core's public entry. */
export type Core = typeof import("@plugboard/core");

/** The `@plugboard/core` that `pluginDir` resolves, else the kit's. */
export async function coreFor(pluginDir: string): Promise<Core> {
  let own: string | undefined;
  try {
    own = Bun.resolveSync("@plugboard/core", pluginDir);
  } catch {
    // Not resolvable from the plugin's folder: the kit's own copy.
  }
  return own === undefined ? import("@plugboard/core") : (import(own) as Promise<Core>);
}
