/**
 * How many patterns a glob's braces expand to, counted before fast-glob expands them:
 * fast-glob builds every expansion up front, so `{a,b}` written 40 times would take
 * 2^40 patterns (and the CPU forever) before the first folder is read.
 */

/**
 * An upper bound on the number of patterns `pattern` expands to (`src/*.{js,json}` → 2,
 * `{1..10}` → 10), stopping once past `limit`.
 */
export function braceExpansions(pattern: string, limit: number): number {
  return sequence({ pattern, limit, groups: new Map() }, 0, false).count;
}

interface Parse {
  readonly pattern: string;
  readonly limit: number;
  /** Each group counted once by its opening index: unclosed `{{{…` would be exponential. */
  readonly groups: Map<number, Counted>;
}

interface Counted {
  readonly count: number;
  /** Where the sequence stopped: at a `,` or `}` of the group around it, or the end. */
  readonly end: number;
}

/** A run of text and groups; inside a group it stops at the group's `,` or `}`. */
function sequence(parse: Parse, start: number, inGroup: boolean): Counted {
  const { pattern, limit } = parse;
  let count = 1;
  let index = start;
  while (index < pattern.length) {
    const char = pattern[index];
    if (char === "\\") index += 2;
    else if (inGroup && (char === "," || char === "}")) return { count, end: index };
    else if (char === "{") {
      const group = parse.groups.get(index) ?? braceGroup(parse, index);
      parse.groups.set(index, group);
      count = Math.min(count * group.count, limit + 1);
      index = group.end;
    } else index++;
  }
  return { count, end: index };
}

/** The group opening at `open`: the sum of its alternatives, or the size of a range. */
function braceGroup(parse: Parse, open: number): Counted {
  const { pattern, limit } = parse;
  let alternatives = 0;
  let total = 0;
  let index = open + 1;
  while (index < pattern.length) {
    const alternative = sequence(parse, index, true);
    alternatives++;
    total = Math.min(total + alternative.count, limit + 1);
    index = alternative.end;
    if (pattern[index] === "}") {
      if (alternatives > 1) return { count: total, end: index + 1 };
      return { count: rangeSize(pattern.slice(open + 1, index)), end: index + 1 };
    }
    if (pattern[index] === ",") index++;
  }
  // No closing brace: the `{` is literal text.
  return { count: 1, end: open + 1 };
}

const RANGE = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.-?\d+)?$/;

/** `1..100` → 100, `a..z` → 26; anything else in a lone group (`{x}`) is literal → 1. */
function rangeSize(body: string): number {
  const match = RANGE.exec(body);
  if (!match) return 1;
  const [from, to] = [match[1] ?? "", match[2] ?? ""].map((end) => (/\d/.test(end) ? Number(end) : end.charCodeAt(0)));
  return Math.abs((to ?? 0) - (from ?? 0)) + 1;
}
