/**
 * The literal text every name a pattern can match ends with: `.ts` for `**\/*.ts`,
 * `index.ts` for `src/index.ts`. A file whose name has none of a scan's endings cannot
 * match, so it is dropped from its folder's listing before fast-glob sees it, which spares
 * fast-glob building its path and testing it against the pattern's regular expression.
 */

/**
 * The endings of fast-glob's expanded `patterns` (no braces left), one per pattern; undefined
 * when a pattern ends in a wildcard or anything else that is not plain text, so every name
 * must be tested.
 */
export function nameEndings(patterns: readonly string[]): readonly string[] | undefined {
  const endings: string[] = [];
  for (const pattern of patterns) {
    // An escape can make any character literal: such patterns are left to fast-glob.
    if (pattern.includes("\\")) return undefined;
    const ending = PLAIN_ENDING.exec(pattern)?.[0];
    // `.` and `..` name folders, not files ending with a dot.
    if (ending === undefined || /^\.+$/.test(ending)) return undefined;
    endings.push(ending);
  }
  return endings.length > 0 ? endings : undefined;
}

/**
 * Trailing characters that the matcher reads only as themselves: a name that matches ends
 * with them (a path matching `…\.ts\/?$` ends with `.ts` when it is a file).
 */
const PLAIN_ENDING = /[A-Za-z0-9._-]+$/;

/** Whether `name` ends with one of `endings`. */
export function endsWithOne(name: string, endings: readonly string[]): boolean {
  for (const ending of endings) if (name.endsWith(ending)) return true;
  return false;
}
