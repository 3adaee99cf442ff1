/**
 * Small valibot helpers shared by the config and manifest schemas, so both report problems
 * the same way: one line per problem, `path.to[0].key: what is wrong`.
 */
import { formatSchemaErrors } from "@plugboard/core/internal";
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
  return formatSchemaErrors(issues.map((issue) => ({ path: issue.path?.map((item) => item.key) ?? [], message: issue.message })));
}
