/**
 * In the bundled CLI, plugins (loaded from their own packages) import `@plugboard/core`: they
 * are given the bundle's own core, `dist/core.js`, the one their manifest's contract range
 * was checked against, so core and TypeBox are not loaded a second time. Used by the
 * bundle's entry (bin.ts); it is loaded on first import.
 */
export function useBundledCore(): void {
  Bun.plugin({
    name: "plugboard-bundled-core",
    setup(build) {
      build.module("@plugboard/core", () => ({ exports: import.meta.require(`${import.meta.dir}/core.js`), loader: "object" }));
    },
  });
}
