/**
 * The `.env` file beside a config: `KEY=VALUE` lines, `#` comments, optional quotes and an
 * optional `export ` prefix. It never changes `process.env`; the caller merges it under the
 * real environment, which wins.
 */
import { readFile } from "node:fs/promises";
import { configErrors } from "./messages.ts";

const LINE = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/;
const ESCAPES: Readonly<Record<string, string>> = { n: "\n", r: "\r", t: "\t", '"': '"', "\\": "\\" };

/**
 * Reads `path` as a `.env` file; a missing file is an empty one.
 * Throws `CONFIG_INVALID` naming the line that is not `KEY=VALUE`.
 */
export async function readDotEnv(path: string): Promise<Record<string, string>> {
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return "";
    throw error;
  });
  return parseDotEnv(text, path);
}

/**
 * Parses `.env` text; `file` names it in errors.
 *
 * @example parseDotEnv('MODEL="gpt-4.1" # the default\n', ".env") // { MODEL: "gpt-4.1" }
 */
export function parseDotEnv(text: string, file: string): Record<string, string> {
  const values: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const match = LINE.exec(line);
    const value = match?.[2] === undefined ? undefined : unquote(match[2]);
    if (!match?.[1] || value === undefined) throw configErrors.dotEnvLine(file, index + 1);
    values[match[1]] = value;
  });
  return values;
}

/** The value with its quotes removed (and escapes decoded in double quotes); undefined if unbalanced. */
function unquote(raw: string): string | undefined {
  const quote = raw[0];
  if (quote !== '"' && quote !== "'") return raw.replace(/\s+#.*$/, "");
  const closing = quote === '"' ? closingDoubleQuote(raw) : raw.indexOf("'", 1);
  if (closing < 0 || !/^\s*(?:#.*)?$/.test(raw.slice(closing + 1))) return undefined;
  const inner = raw.slice(1, closing);
  return quote === '"' ? inner.replace(/\\(.)/g, (all, char: string) => ESCAPES[char] ?? all) : inner;
}

function closingDoubleQuote(raw: string): number {
  for (let at = 1; at < raw.length; at++) {
    if (raw[at] === "\\") at++;
    else if (raw[at] === '"') return at;
  }
  return -1;
}
