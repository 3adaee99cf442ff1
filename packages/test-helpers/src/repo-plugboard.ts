/**
 * This repository's `plugboard`, run from its sources, as a command line: for tests that give
 * the plugin authors' kit a plugboard to run a plugin confined with (its `plugboard` option),
 * where no installed one is on PATH. A path, not an import: no package depends on the CLI.
 */
import { fileURLToPath } from "node:url";

/** `bun apps/cli/src/main.ts`. */
export const REPO_PLUGBOARD: readonly string[] = [process.execPath, fileURLToPath(new URL("../../../apps/cli/src/main.ts", import.meta.url))];
