/**
 * One way to say what is wrong with a value checked against a schema: one line per failing
 * path, `path: problem`, the first problem of each path. Tool arguments, plugin options,
 * config files, manifests and request bodies all report through it.
 */

/** A key path (`["plugins", 2, "options", "max"]`) and what is wrong there. */
export interface SchemaProblem {
  /** Numbers are array indices; anything else is named by its string form. */
  readonly path: readonly unknown[];
  readonly message: string;
}

/** How `formatSchemaErrors` names paths. */
export interface FormatOptions {
  /** Keys put in front of every path (where the checked value sits in a larger document). */
  readonly prefix?: readonly unknown[];
  /** The name of the value itself, when a problem concerns it as a whole. */
  readonly root?: string;
}

/**
 * One `path: problem` line per failing path, in the order found; a message's first letter is
 * lower-cased so it reads on after the colon.
 *
 * @example formatSchemaErrors([{ path: ["limit"], message: "Expected integer" }]) // ["limit: expected integer"]
 */
export function formatSchemaErrors(problems: Iterable<SchemaProblem>, options: FormatOptions = {}): string[] {
  const seen = new Map<string, string>();
  for (const problem of problems) {
    const path = formatPath([...(options.prefix ?? []), ...problem.path]) || (options.root ?? "(root)");
    if (!seen.has(path)) seen.set(path, problem.message.charAt(0).toLowerCase() + problem.message.slice(1));
  }
  return [...seen].map(([path, message]) => `${path}: ${message}`);
}

/** `["plugins", 2, "permissions", 0]` → `plugins[2].permissions[0]`; odd keys are quoted. */
export function formatPath(keys: readonly unknown[]): string {
  let path = "";
  for (const key of keys) {
    if (typeof key === "number") path += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) path += path === "" ? key : `.${key}`;
    else path += `[${JSON.stringify(String(key))}]`;
  }
  return path;
}

/** A problem whose path is a JSON Pointer (`/limits/0/max`, `""` for the whole value), as TypeBox and Ajv report them. */
export interface PointerProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * Problems with JSON Pointer paths as key paths: `/limits/0/max` → `["limits", 0, "max"]`.
 *
 * @example formatSchemaErrors(pointerProblems(check.Errors(value)))
 */
export function pointerProblems(errors: Iterable<PointerProblem>): SchemaProblem[] {
  return [...errors].map((error) => ({ path: pointerKeys(error.path), message: error.message }));
}

/**
 * A tool call's failing arguments, whichever validator found them (TypeBox for plugins' tools,
 * Ajv for an MCP server's): `items[0].name: expected string`, `(arguments): …` (or `root`) for the whole.
 *
 * @example fieldProblems(check.Errors(args)) // ["path: expected required property"]
 */
export function fieldProblems(errors: Iterable<PointerProblem>, root = "(arguments)"): string[] {
  return formatSchemaErrors(pointerProblems(errors), { root });
}

function pointerKeys(pointer: string): (string | number)[] {
  if (pointer === "") return [];
  return pointer
    .slice(1)
    .split("/")
    .map((segment) => segment.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
}
