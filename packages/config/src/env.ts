/**
 * The `.env` file beside a config, parsed by the runtime's own `.env` parser
 * (`util.parseEnv`, the same syntax Bun and Node load at start). It never changes
 * `process.env`; the caller merges it under the real environment, which wins.
 */
import { parseEnv } from "node:util";
import { readTextBounded } from "@plugboard/core/internal";

/**
 * Reads `path` as a `.env` file (`KEY=VALUE` lines, `#` comments, quotes, `export `); a
 * missing file is an empty one. Read at once, as the config is (a few kilobytes).
 *
 * @example await readDotEnv("/app/.env") // { MODEL: "gpt-4.1" }
 */
export async function readDotEnv(path: string): Promise<Record<string, string>> {
  const text = readOrEmpty(path);
  return Object.fromEntries(Object.entries(parseEnv(text)).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]])));
}

function readOrEmpty(path: string): string {
  try {
    // Not a FIFO nor a device: a .env is read whole at every start (bounded-read.ts).
    return readTextBounded(path);
  } catch (error) {
    if (Reflect.get(error as object, "code") === "ENOENT") return "";
    throw error;
  }
}
