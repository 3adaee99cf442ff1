/**
 * Plugins import `@plugboard/core`, and a plugin that runs programs `@plugboard/core/process`.
 * A process that loads them from one bundle of its own (the bundled CLI, a confined host's
 * program) gives them that bundle's core: the one their manifest's contract range was checked
 * against, loaded once, so that a plugin's errors, schemas and process trees are the process's
 * own kind, and no copy of core is read from its sources and compiled again for a plugin.
 * Not an API for plugins.
 */
import * as core from "./index.ts";
import * as processHelpers from "./process/index.ts";

/** The entry points of core that plugins import, each with this module's own. */
const SHARED: Readonly<Record<string, Record<string, unknown>>> = { "@plugboard/core": core, "@plugboard/core/process": processHelpers };

/** From now on, `import "@plugboard/core"` (or `…/process`) in this process, a plugin's, is this module's core. */
export function sharePluginsCore(): void {
  Bun.plugin({
    name: "plugboard: the process's own core for its plugins",
    setup(build) {
      for (const [specifier, exports] of Object.entries(SHARED)) build.module(specifier, () => ({ exports, loader: "object" }));
    },
  });
}
