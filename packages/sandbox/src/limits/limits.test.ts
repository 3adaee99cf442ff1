import { describe, expect, test } from "bun:test";
import { DEFAULT_LIMITS, formatSize, parseSize } from "./limits.ts";

describe("sizes", () => {
  test("a number of bytes, or a number and a binary or decimal unit", () => {
    expect(parseSize(268435456)).toBe(256 * 1024 ** 2);
    expect(parseSize("256 MiB")).toBe(256 * 1024 ** 2);
    expect(parseSize("2GiB")).toBe(2 * 1024 ** 3);
    expect(parseSize("1.5 GiB")).toBe(1.5 * 1024 ** 3);
    expect(parseSize("8 MB")).toBe(8_000_000);
    expect(parseSize("4096")).toBe(4096);
  });

  test("no size: nothing, zero, a fraction of a byte, an unknown unit, words", () => {
    for (const bad of ["", "0", 0, -1, 1.5, "12 mib", "lots", "2 GB of it", "GiB"]) expect({ bad, bytes: parseSize(bad) }).toEqual({ bad, bytes: undefined });
  });

  test("shown in the largest binary unit that divides it", () => {
    expect(formatSize(DEFAULT_LIMITS.memory)).toBe("2 GiB");
    expect(formatSize(DEFAULT_LIMITS.tmp)).toBe("256 MiB");
    expect(formatSize(1536 * 1024)).toBe("1536 KiB");
    expect(formatSize(1000)).toBe("1000 bytes");
  });
});
