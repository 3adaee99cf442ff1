/**
 * In the bundled CLI, plugins (loaded from their own packages) import `@plugboard/core`: they
 * are given the bundle's own core, the one their manifest's contract range was checked
 * against, so core and TypeBox are not loaded a second time and a plugin's errors and schemas
 * are the app's own kind. Used by the bundle's program (cli.ts).
 */
import * as core from "@plugboard/core";

export function useBundledCore(): void {
  Bun.plugin({
    name: "plugboard-bundled-core",
    setup(build) {
      build.module("@plugboard/core", () => ({ exports: core, loader: "object" }));
    },
  });
}
