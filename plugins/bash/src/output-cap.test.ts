import { describe, expect, test } from "bun:test";
import { cutMarker, OutputCap, shareBudget } from "./output-cap.ts";

/** What capping must produce: computed from the whole text at once. */
function expected(full: string, budget: number): string {
  if (full.length <= budget) return full;
  const head = Math.ceil(budget / 2);
  const tail = budget - head;
  return `${full.slice(0, head)}${cutMarker(full.length - budget)}${full.slice(full.length - tail)}`;
}

function capture(limit: number, chunks: readonly string[]): OutputCap {
  const cap = new OutputCap(limit);
  for (const chunk of chunks) cap.push(chunk);
  return cap;
}

/** Splits `text` into pieces of the given sizes, repeating the sizes until the text ends. */
function split(text: string, sizes: readonly number[]): string[] {
  const pieces: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

const digits = Array.from({ length: 400 }, (_, i) => String(i + 1)).join("");

describe("OutputCap", () => {
  test("keeps text that fits whole, up to exactly the limit", () => {
    expect(capture(10, ["hello"]).text()).toBe("hello");
    expect(capture(10, ["hello", "world"]).text()).toBe("helloworld");
    expect(capture(10, []).text()).toBe("");
  });

  test("keeps the first and last halves and counts exactly what was cut", () => {
    const cap = capture(100, [digits]);
    expect(cap.total).toBe(1092);
    expect(cap.text()).toBe(`${digits.slice(0, 50)}\n... (992 characters cut) ...\n${digits.slice(-50)}`);
  });

  test("gives the same result whatever the chunk sizes", () => {
    for (const limit of [1, 2, 7, 100, 1091, 1092, 5000]) {
      for (const sizes of [[1], [3, 1, 7], [64], [999], [5000]]) {
        expect(capture(limit, split(digits, sizes)).text()).toBe(expected(digits, limit));
      }
    }
  });

  test("cuts to a smaller budget exactly, before and after the limit was reached", () => {
    const whole = capture(2000, split(digits, [13]));
    const capped = capture(100, split(digits, [13]));
    for (const budget of [0, 1, 10, 99, 100]) {
      expect(whole.text(budget)).toBe(expected(digits, budget));
      expect(capped.text(budget)).toBe(expected(digits, budget));
    }
    expect(capture(2000, [digits.slice(0, 60)]).text(50)).toBe(expected(digits.slice(0, 60), 50));
  });

  test("a budget over the limit is a programming error", () => {
    expect(() => capture(10, ["x"]).text(11)).toThrow(RangeError);
    expect(() => new OutputCap(-1)).toThrow(RangeError);
  });

  test("counts a long stream exactly while keeping only the cap", () => {
    const cap = new OutputCap(10);
    const chunk = "a".repeat(1000);
    for (let i = 0; i < 1000; i++) cap.push(chunk);
    cap.push("0123456789");
    expect(cap.total).toBe(1_000_010);
    expect(cap.text()).toBe(`aaaaa${cutMarker(1_000_000)}56789`);
  });
});

describe("shareBudget", () => {
  test("gives each stream all it needs when both fit", () => {
    expect(shareBudget(10, 20, 100)).toEqual([10, 20]);
    expect(shareBudget(0, 0, 100)).toEqual([0, 0]);
  });

  test("gives the short stream all it needs and the long one the rest", () => {
    expect(shareBudget(10, 500, 100)).toEqual([10, 90]);
    expect(shareBudget(500, 10, 100)).toEqual([90, 10]);
  });

  test("splits evenly when both are long", () => {
    expect(shareBudget(500, 500, 100)).toEqual([50, 50]);
    expect(shareBudget(500, 60, 101)).toEqual([51, 50]);
  });
});
