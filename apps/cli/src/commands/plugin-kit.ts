/**
 * The plugin authors' conformance kit, `@plugboard/testing`, for `plugboard plugin check` and
 * `plugboard plugin sync`, the only commands that need it. It is not the CLI's dependency:
 * each plugin depends on the kit (a devDependency, as `plugboard plugin new` writes it), and
 * these commands load the copy the plugin's folder resolves, so a plugin is checked by the
 * kit it is written against. What the kit throws is that copy's `PlugboardError`:
 * recognised by its name and code, and thrown again as ours.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { PlugboardError, type PlugboardErrorCode } from "@plugboard/errors";
import { lazily } from "@plugboard/core/internal";

type Kit = typeof import("@plugboard/testing");

/**
 * Runs `use` with the kit the plugin in `directory` resolves; no kit there, one that cannot be
 * loaded, or a person-facing failure inside it, is a `PlugboardError`.
 */
export async function withKit<T>(directory: string, use: (kit: Kit) => Promise<T>): Promise<T> {
  if (!statSync(directory, { throwIfNoEntry: false })?.isDirectory()) {
    throw new PlugboardError("PLUGIN_NOT_FOUND", `Plugin folder ${directory} does not exist or is not a folder.`);
  }
  let entry: string;
  try {
    entry = Bun.resolveSync("@plugboard/testing", directory);
  } catch {
    throw new PlugboardError("USAGE", noKit(directory));
  }
  const kit = await lazily(`the plugin conformance kit (${entry})`, () => import(entry) as Promise<Kit>).catch((error: unknown) => {
    const why = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    throw new PlugboardError("USAGE", `${why}.\nReinstall the plugin's dependencies (bun install in ${directory}), then run this again.`);
  });
  try {
    return await use(kit);
  } catch (error) {
    if (error instanceof PlugboardError || !(error instanceof Error) || error.name !== "PlugboardError") throw error;
    throw new PlugboardError(Reflect.get(error, "code") as PlugboardErrorCode, error.message);
  }
}

/** What to do when `directory` resolves no kit: install what the plugin lists, or add the kit to it. */
function noKit(directory: string): string {
  let listed = false;
  try {
    const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as Record<string, Record<string, unknown> | undefined>;
    listed = ["devDependencies", "dependencies"].some((field) => manifest[field]?.["@plugboard/testing"] !== undefined);
  } catch {
    // No package.json to read: the kit is not listed.
  }
  return listed
    ? `The plugin's dependencies are not installed: no @plugboard/testing (the conformance kit it lists, which plugboard runs) in ${directory} or any folder above it.\nRun bun install in ${directory}, then run this again.`
    : `No conformance kit for ${directory}: plugboard runs the @plugboard/testing the plugin depends on.\nAdd it to the plugin with \`bun add -d @plugboard/testing\` (in ${directory}), then run this again.`;
}
