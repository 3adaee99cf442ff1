/**
 * Sorting by Unicode code point. JavaScript's default sort compares UTF-16 code units,
 * which puts characters beyond U+FFFF (`😀`, stored as surrogates D800–DFFF) before
 * U+E000–U+FFFF (`Ａ`); code-point order puts them after, as UTF-8 byte order does.
 */

/** Sorts `strings` in place by code point and returns it. */
export function sortByCodePoint(strings: string[]): string[] {
  // Code-unit order differs from code-point order only between a surrogate and a unit
  // above it, so the native comparison is exact (and several times faster) without them.
  if (!strings.some((text) => SURROGATE.test(text))) return strings.sort();
  return strings.sort(compareCodePoints);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** Compares two strings by code point: negative, zero or positive. */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let index = 0; index < length; index++) {
    const left = a.charCodeAt(index);
    const right = b.charCodeAt(index);
    if (left !== right) return codePointRank(left) - codePointRank(right);
  }
  return a.length - b.length;
}

/** Moves surrogates above U+E000–U+FFFF; the first differing units decide. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}
