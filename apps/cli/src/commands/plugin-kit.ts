/**
 * The plugin authors' kit, `@plugboard/testing`, for `plugboard plugin check` and
 * `plugboard plugin sync`, the only commands that need it. A plugin is checked by the kit it
 * is written against when its folder resolves one (its devDependency, as `plugboard plugin new`
 * writes it); otherwise by the kit this CLI ships with, so that what needs no install (its
 * package.json, its manifest, its names) is checked before anything is installed, and the rest
 * says what to install. The kit runs the plugin confined through this very plugboard. What the
 * kit throws for a person (its `KitError`, or an older kit's `PlugboardError`) is recognised by
 * its name and code, and thrown again as ours.
 */
import { statSync } from "node:fs";
import { PlugboardError, type PlugboardErrorCode } from "@plugboard/errors";
import { lazily } from "@plugboard/core/internal";

type Kit = typeof import("@plugboard/testing");

/** The names a kit's person-facing errors have. */
const KIT_ERRORS = new Set(["KitError", "PlugboardError"]);

/** Runs `use` with the kit for the plugin in `directory`; a missing folder, a kit that cannot be loaded, or a person-facing failure inside it, is a `PlugboardError`. */
export async function withKit<T>(directory: string, use: (kit: Kit) => Promise<T>): Promise<T> {
  if (!statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
    throw new PlugboardError("PLUGIN_NOT_FOUND", `Plugin folder ${directory} does not exist or is not a folder.`);
  }
  const entry = pluginsKit(directory);
  const kit = await lazily(`the plugin conformance kit (${entry ?? "@plugboard/testing"})`, () => (entry === undefined ? import("@plugboard/testing") : (import(entry) as Promise<Kit>))).catch(
    (error: unknown) => {
      if (entry === undefined) throw error;
      const why = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
      throw new PlugboardError("USAGE", `${why}.\nReinstall the plugin's dependencies (bun install in ${directory}), then run this again.`);
    },
  );
  try {
    return await use(kit);
  } catch (error) {
    if (error instanceof PlugboardError || !(error instanceof Error) || !KIT_ERRORS.has(error.name)) throw error;
    throw new PlugboardError(Reflect.get(error, "code") as PlugboardErrorCode, error.message);
  }
}

/**
 * This plugboard as a command line, for the kit to run the plugin confined with: the Bun
 * running it and the script it started from (the bundle, or `src/main.ts`).
 */
export function thisPlugboard(): string[] {
  return [process.execPath, "--no-env-file", "--config=/dev/null", process.argv[1] ?? ""];
}

/** The kit the plugin's folder resolves, when it has one. */
function pluginsKit(directory: string): string | undefined {
  try {
    return Bun.resolveSync("@plugboard/testing", directory);
  } catch {
    return undefined;
  }
}
