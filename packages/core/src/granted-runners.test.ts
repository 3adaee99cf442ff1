import { expect, test } from "bun:test";
import { GrantedRunners } from "./granted-runners.ts";

/** A promise and what settles it. */
function pending<T>() {
  const { promise, resolve } = Promise.withResolvers<T>();
  return { promise, resolve };
}

test("a runner replaced is ended once the calls it runs have answered, not before", async () => {
  const ended: string[] = [];
  const runners = new GrantedRunners<{ name: string }>(async (runner) => void ended.push(runner.name));
  const first = { name: "first" };
  const call = pending<string>();
  const running = runners.running(first, call.promise);
  const retired = runners.retire(first);
  await Bun.sleep(20);
  expect(ended).toEqual([]);
  call.resolve("answered");
  expect(await running).toBe("answered");
  await retired;
  expect(ended).toEqual(["first"]);
});

test("grants for one key are taken in turn, each after the one before has finished (or failed); other keys do not wait", async () => {
  const runners = new GrantedRunners<object>(async () => {});
  const order: string[] = [];
  const slow = pending<void>();
  const a1 = runners.inTurn("a", async () => {
    await slow.promise;
    order.push("a1");
    throw new Error("a1 failed");
  });
  const a2 = runners.inTurn("a", async () => void order.push("a2"));
  const b1 = runners.inTurn("b", async () => void order.push("b1"));
  await b1;
  expect(order).toEqual(["b1"]);
  slow.resolve();
  await expect(a1).rejects.toThrow("a1 failed");
  await a2;
  expect(order).toEqual(["b1", "a1", "a2"]);
});

test("closing ends at once the runners still waiting for their calls, and each once", async () => {
  const ended: string[] = [];
  const runners = new GrantedRunners<{ name: string }>(async (runner) => void ended.push(runner.name));
  const stuck = { name: "stuck" };
  const call = pending<void>();
  runners.running(stuck, call.promise);
  const retired = runners.retire(stuck);
  await runners.endRetiring();
  expect(ended).toEqual(["stuck"]);
  call.resolve();
  await retired;
  expect(ended).toEqual(["stuck"]);
});
