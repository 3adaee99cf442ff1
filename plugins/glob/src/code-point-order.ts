/**
 * Sorting by Unicode code point. JavaScript's default sort compares UTF-16 code units,
 * which puts characters beyond U+FFFF (`😀`, stored as surrogates D800–DFFF) before
 * U+E000–U+FFFF (`Ａ`); code-point order puts them after, as UTF-8 byte order does.
 */

/**
 * The first `count` of `strings` in code-point order (all of them when there are fewer).
 * Only those are sorted: a sorted sample gives a bound that at least `count` strings stay
 * under, and the strings under it are sorted; sorting 50,000 paths to list 1,000 costs
 * several times the search otherwise. `strings` may be reordered.
 */
export function firstByCodePoint(strings: string[], count: number): string[] {
  // Code-unit order differs from code-point order only between a surrogate and a unit
  // above it, so without surrogates the native comparison (much faster) is exact.
  if (strings.some((text) => SURROGATE.test(text))) return strings.sort(compareCodePoints).slice(0, count);
  if (strings.length > 4 * count && strings.length > SAMPLE) {
    const bound = sampleBound(strings, count);
    const under = strings.filter((text) => text <= bound);
    if (under.length >= count) return under.sort().slice(0, count);
  }
  return strings.sort().slice(0, count);
}

const SURROGATE = /[\uD800-\uDFFF]/;
const SAMPLE = 2000;

/** A string that, judging by an evenly spaced sorted sample, about twice `count` strings stay under. */
function sampleBound(strings: readonly string[], count: number): string {
  const step = strings.length / SAMPLE;
  const sample: string[] = [];
  for (let index = 0; index < SAMPLE; index++) sample.push(strings[Math.floor(index * step)] ?? "");
  sample.sort();
  const rank = Math.min(SAMPLE - 1, Math.ceil(((2 * count) / strings.length) * SAMPLE) + 8);
  return sample[rank] ?? "";
}

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
