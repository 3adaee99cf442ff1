/**
 * Plugins import `@plugboard/core`. A process that loads them from one bundle of its own (the
 * bundled CLI, a confined host's program) gives them that bundle's core: the one their
 * manifest's contract range was checked against, loaded once, so that a plugin's errors and
 * schemas are the process's own kind. Not an API for plugins.
 */
import * as core from "./index.ts";

/** From now on, `import "@plugboard/core"` in this process (a plugin's) is this module's core. */
export function sharePluginsCore(): void {
  Bun.plugin({
    name: "plugboard: the process's own core for its plugins",
    setup(build) {
      build.module("@plugboard/core", () => ({ exports: core, loader: "object" }));
    },
  });
}
