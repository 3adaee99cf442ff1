/** `plugboard check`'s lines for the paths each entry is granted besides the workspace (`"read"`, `"write"`). */
import { existsSync } from "node:fs";
import type { StartedApp } from "@plugboard/bootstrap";

/** Each plugin and server granted paths, with what it may do there; nothing when none is. */
export function grantedPathLines({ config, plugins, codePinning }: StartedApp): string[] {
  const names = plugins.map((plugin) => plugin.name);
  const unloaded = new Map(codePinning.withheld.map((change) => [change.index, change.source]));
  const granted = config.plugins.flatMap((entry, index) => {
    const name = "mcp" in entry ? `${entry.name} (mcp)` : (unloaded.get(index) ?? names.shift() ?? "");
    return [...pathsOf(name, "reads", entry.read), ...pathsOf(name, "writes", entry.write)];
  });
  return granted.map((line, index) => `${index === 0 ? "  paths:     " : "             "}${line}`);
}

function pathsOf(name: string, verb: string, paths: readonly string[] | undefined): string[] {
  if (paths === undefined || paths.length === 0) return [];
  const shown = paths.map((path) => (existsSync(path) ? path : `${path} (does not exist: not in its view)`));
  return [`${name} ${verb} ${shown.join(", ")}${verb === "writes" ? " (but the protected paths in them)" : ""}`];
}
