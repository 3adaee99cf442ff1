/**
 * fast-glob is imported on the first glob call, not when the plugin loads: every app start
 * (even `plugboard tools`) would otherwise pay for it.
 */
import type fg from "fast-glob";

let loading: Promise<typeof fg> | undefined;

/** The fast-glob module, imported once. */
export function loadFastGlob(): Promise<typeof fg> {
  loading ??= import("fast-glob").then((module) => module.default);
  return loading;
}
