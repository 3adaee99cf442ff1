/**
 * `plugboard plugin sync [DIR] [--check]`: the manifest's tool list written from the plugin's
 * code, by `@plugboard/testing`'s `syncManifest` (the code runs in a child process, as for
 * `plugin check`).
 */
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve } from "node:path";
import { PlugboardError } from "@plugboard/errors";
import { visible } from "@plugboard/core/internal";
import type { ParsedArgs } from "../args.ts";
import type { Io } from "../io.ts";
import { withKit } from "./plugin-kit.ts";

/** Prints what changed, or that the manifest is up to date: 0; with `--check`, 1 when it is out of date (nothing written). */
export async function pluginSyncCommand(parsed: ParsedArgs, io: Io): Promise<number> {
  const check = parsed.flags.check === true;
  const directory = resolve(io.cwd, parsed.args[0] ?? ".");
  if (statSync(directory, { throwIfNoEntry: false })?.isDirectory() && !existsSync(join(directory, "plugboard.plugin.json"))) {
    throw new PlugboardError("PLUGIN_MANIFEST", `There is no plugboard.plugin.json in ${directory}; plugboard plugin sync updates the tools of an existing manifest.`);
  }
  return withKit(directory, async ({ changeLine, syncManifest }) => {
    const sync = await syncManifest(directory, { write: !check });
    const shown = shownPath(sync.manifestPath, io.cwd);
    if (sync.changes.length === 0) {
      io.stdout.write(`${shown} is up to date: ${visible(sync.tools.map((tool) => tool.name).join(", "))}.\n`);
      return 0;
    }
    const heading = check ? `${shown} is out of date; plugboard plugin sync would change its tools:` : `Updated the tools of ${shown}:`;
    io.stdout.write(`${[heading, ...sync.changes.map((change) => `  ${visible(changeLine(change))}`)].join("\n")}\n`);
    return check ? 1 : 0;
  });
}

/** The manifest's path relative to the current folder, or absolute when it is elsewhere. */
function shownPath(path: string, cwd: string): string {
  const near = relative(cwd, path);
  return near.startsWith("..") || isAbsolute(near) ? path : near;
}
