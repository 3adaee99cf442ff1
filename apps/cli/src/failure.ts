/**
 * What a failure says to a person and the exit code it ends with. Person-facing failures
 * (`PlugboardError`) say their message, and so do a bug in a plugin's code (`PluginError`,
 * exit 2) and a part of Plugboard that is not installed (a `LazyLoadError` whose module cannot
 * be found, exit 2); anything else is a bug of ours and is thrown on, to crash with its stack.
 */
import { PlugboardError } from "@plugboard/errors";
import { LazyLoadError, lazily } from "@plugboard/core/internal";

/** The message (one line or a few) and the exit code of a failure a person acts on. */
export interface Failure {
  readonly message: string;
  readonly code: number;
}

/** Exit codes for person-facing failures: 3 for the model endpoint, 2 for everything else. */
const MODEL_CODES = new Set(["MODEL_ENDPOINT"]);

/**
 * The failure `error` is to a person; throws `error` itself when it is a bug of ours.
 *
 * @example const { message, code } = await failureOf(error);
 */
export async function failureOf(error: unknown): Promise<Failure> {
  if (error instanceof PlugboardError) return { message: error.message, code: MODEL_CODES.has(error.code) ? 3 : 2 };
  if (error instanceof LazyLoadError && isNotFound(error.cause)) {
    // A file of ours or a dependency is missing: the fix is the installation, not the command line.
    const why = error.message.split("\n")[0] ?? "";
    return { message: `${why}.\nReinstall plugboard (npm install -g with the CLI's tarball, or bun install --frozen-lockfile in a clone) so that all its files and dependencies are installed.`, code: 2 };
  }
  // A bug in a plugin's code (wherever the plugin runs): the person's fix is the plugin's author, or the config.
  const { PluginError } = await lazily("the runtime @plugboard/core/internal", () => import("@plugboard/core/internal"));
  if (!(error instanceof PluginError)) throw error;
  const who = error.plugin ?? "the plugin";
  return { message: `${error.message}\nThis is a bug in ${who}, not in the call: report it to its author, or remove ${who} from the config.`, code: 2 };
}

/** Whether a module failed to load because it could not be found (Bun's resolution error, `import` or `require`). */
function isNotFound(error: unknown): boolean {
  const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
  return code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND";
}
