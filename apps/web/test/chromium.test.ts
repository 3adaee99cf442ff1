import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { chromiumExecutable } from "./chromium.ts";

describe("chromiumExecutable", () => {
  test("CHROMIUM_PATH wins, and a missing one says so", async () => {
    expect(await chromiumExecutable({ CHROMIUM_PATH: process.execPath })).toBe(process.execPath);
    await expect(chromiumExecutable({ CHROMIUM_PATH: "/no/such/chromium" })).rejects.toThrow(
      "CHROMIUM_PATH is set to /no/such/chromium, which does not exist.",
    );
  });

  test("without CHROMIUM_PATH it is Debian's Chromium when installed, else the npm package's, inflated once", async () => {
    const path = await chromiumExecutable({});
    if (existsSync("/usr/bin/chromium")) {
      expect(path).toBe("/usr/bin/chromium");
      return;
    }
    expect(path).toMatch(/plugboard-chromium-\d+\.\d+\.\d+$/);
    const version = await Bun.$`${path} --version`.text();
    expect(version).toMatch(/^Chromium \d+/);
    expect(await chromiumExecutable({})).toBe(path);
  }, 60_000);
});
