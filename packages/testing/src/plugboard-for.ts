/**
 * Which copy of Plugboard the harness loads a plugin with. A plugin in its own folder (its
 * devDependencies installed) resolves its own `@plugboard/core`; if the harness used another
 * copy, the plugin's `ToolError` would not be the runtime's, and every expected failure would
 * look like a crash. So the harness prefers the bootstrap and core the plugin resolves, and
 * falls back to its own (as in a monorepo, where both are the same files anyway).
 */
import { realpathSync } from "node:fs";
import { dirname } from "node:path";

/** The bootstrap and the core it builds apps with. */
export interface Plugboard {
  readonly bootstrap: typeof import("@plugboard/bootstrap");
  readonly core: typeof import("@plugboard/runtime") & Pick<typeof import("@plugboard/core"), "ToolRegistry">;
}

/** The plugin's own bootstrap and core when it resolves both (and that bootstrap uses that core), else the harness's. */
export async function plugboardFor(pluginDir: string): Promise<Plugboard> {
  const own = ownCopies(pluginDir);
  if (own) return { bootstrap: await import(own.bootstrap), core: { ...(await import(own.runtime)), ToolRegistry: (await import(own.core)).ToolRegistry } };
  return { bootstrap: await import("@plugboard/bootstrap"), core: { ...(await import("@plugboard/runtime")), ToolRegistry: (await import("@plugboard/core")).ToolRegistry } };
}

function ownCopies(pluginDir: string): { bootstrap: string; core: string; runtime: string } | undefined {
  try {
    const bootstrap = realpathSync(Bun.resolveSync("@plugboard/bootstrap", pluginDir));
    const core = realpathSync(Bun.resolveSync("@plugboard/core", pluginDir));
    const coreOfBootstrap = realpathSync(Bun.resolveSync("@plugboard/core", dirname(bootstrap)));
    return core === coreOfBootstrap ? { bootstrap, core, runtime: realpathSync(Bun.resolveSync("@plugboard/runtime", dirname(bootstrap))) } : undefined;
  } catch {
    return undefined;
  }
}
