import { expect, test } from "bun:test";
import { compareCodePoints, firstByCodePoint } from "./code-point-order.ts";

test("code-point order puts U+E000–U+FFFF before characters beyond U+FFFF", () => {
  expect(["😀.txt", "Ａ.txt", "\uFFFD", "a"].sort(compareCodePoints)).toEqual(["a", "Ａ.txt", "\uFFFD", "😀.txt"]);
  expect(compareCodePoints("ab", "abc")).toBeLessThan(0);
  expect(compareCodePoints("x", "x")).toBe(0);
});

test("the first N of many strings are the first N of the whole sorted list, whatever their spread", () => {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const shapes = [
    () => `pkg-${Math.floor(random() * 100)}/file-${Math.floor(random() * 1e6)}.ts`,
    () => (random() < 0.9 ? "zzz/same" : `a/${Math.floor(random() * 1e6)}`),
    () => String.fromCharCode(97 + Math.floor(random() * 3)).repeat(1 + Math.floor(random() * 4)),
  ];
  for (const shape of shapes) {
    for (const [size, count] of [[50_000, 1000], [9000, 1000], [5000, 10], [3, 10]] as const) {
      const strings = Array.from({ length: size }, shape);
      const expected = [...strings].sort().slice(0, count);
      expect(firstByCodePoint([...strings], count)).toEqual(expected);
    }
  }
});

test("with surrogates present the whole list is sorted by code point", () => {
  const strings = Array.from({ length: 10_000 }, (_, index) => `${index % 2 ? "😀" : "Ａ"}${index}`);
  expect(firstByCodePoint(strings, 3)).toEqual(["Ａ0", "Ａ10", "Ａ100"]);
});
