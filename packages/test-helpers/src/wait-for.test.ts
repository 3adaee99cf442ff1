import { expect, test } from "bun:test";
import { waitFor } from "./wait-for.ts";

test("resolves as soon as the check holds", async () => {
  let calls = 0;
  await waitFor("the third call", () => ++calls === 3);
  expect(calls).toBe(3);
});

test("resolves with what the check found, once it found something", async () => {
  let calls = 0;
  const found = await waitFor("a value", async () => (++calls < 3 ? undefined : `found on call ${calls}`));
  expect(found).toBe("found on call 3");
});

test("throws, naming what never happened, when the deadline passes", async () => {
  let calls = 0;
  const waited = waitFor("the file appears", () => {
    calls += 1;
    return false;
  }, { timeoutMs: 50 });
  await expect(waited).rejects.toThrow("timed out after 50 ms waiting until the file appears");
  expect(calls).toBeGreaterThan(1);
});
