/**
 * Small valibot helpers shared by the config and manifest schemas, so both report problems
 * the same way: one line per problem, `path.to[0].key: what is wrong`.
 */
import * as v from "valibot";

type Entries = v.ObjectEntries;

/** A strict object: a missing required key says "required", an unknown key lists the known ones. */
export function strict<const E extends Entries>(entries: E) {
  const known = Object.keys(entries).join(", ");
  return v.strictObject(entries, (issue) =>
    issue.expected === "never"
      ? `unknown key (allowed keys: ${known})`
      : issue.received === "undefined"
        ? "required"
        : `expected an object, got ${issue.received}`,
  );
}

/** A non-empty string. */
export function text(what = "a non-empty string") {
  return v.pipe(
    v.string((issue) => `expected ${what}, got ${issue.received}`),
    v.minLength(1, `expected ${what}, got an empty string`),
  );
}

/** An array of `item`. */
export function list<const S extends v.GenericSchema>(item: S) {
  return v.array(item, (issue) => `expected an array, got ${issue.received}`);
}

/** One of `options`, listed in the message. */
export function oneOf<const T extends readonly [string, ...string[]]>(options: T) {
  return v.picklist(options, (issue) => `expected one of ${options.join(", ")}, got ${issue.received}`);
}

/** Each problem as `path: message`, in the order valibot found them. */
export function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path?.map((item) => item.key) ?? []);
    return `${path === "" ? "(root)" : path}: ${issue.message}`;
  });
}

/** `["plugins", 2, "permissions", 0]` → `plugins[2].permissions[0]`. */
export function formatPath(keys: readonly unknown[]): string {
  let path = "";
  for (const key of keys) {
    if (typeof key === "number") path += `[${key}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$]*$/.test(key)) path += path === "" ? key : `.${key}`;
    else path += `[${JSON.stringify(String(key))}]`;
  }
  return path;
}
