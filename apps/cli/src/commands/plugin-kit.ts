/**
 * The plugin authors' conformance kit, `@plugboard/testing`, for `plugboard plugin check` and
 * `plugboard plugin sync`, the only commands that need it: imported when one of them runs.
 * The bundle leaves the kit out (its harness is a file of its own), so what the kit throws is
 * another copy's `PlugboardError`: recognised by its name and code, and thrown again as ours.
 */
import { PlugboardError, type PlugboardErrorCode } from "@plugboard/config/errors";
import { lazily } from "@plugboard/core/internal";

type Kit = typeof import("@plugboard/testing");

/** Runs `use` with the kit; a kit that cannot be loaded, or a person-facing failure inside it, is a `PlugboardError`. */
export async function withKit<T>(use: (kit: Kit) => Promise<T>): Promise<T> {
  const kit = await lazily("the plugin conformance kit @plugboard/testing", () => import("@plugboard/testing")).catch((error: unknown) => {
    const why = error instanceof Error ? (error.message.split("\n")[0] ?? "") : String(error);
    throw new PlugboardError("USAGE", `${why}. Reinstall plugboard (bun add -g @plugboard/cli) so that its dependencies are installed.`);
  });
  try {
    return await use(kit);
  } catch (error) {
    if (error instanceof PlugboardError || !(error instanceof Error) || error.name !== "PlugboardError") throw error;
    throw new PlugboardError(Reflect.get(error, "code") as PlugboardErrorCode, error.message);
  }
}
