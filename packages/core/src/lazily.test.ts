import { describe, expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LazyLoadError, lazily, lazilySync } from "./lazily.ts";

const MISSING = "./no-such-module-of-plugboard.ts";

async function failure(load: Promise<unknown>): Promise<LazyLoadError> {
  const error = await load.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(LazyLoadError);
  return error as LazyLoadError;
}

describe("lazily", () => {
  test("gives the module it imports", async () => {
    const { lazilySync: loaded } = await lazily("the lazy loader", () => import("./lazily.ts"));
    expect(loaded).toBe(lazilySync);
  });

  test("a module that cannot be imported fails naming what was loading, its error kept as the cause", async () => {
    const error = await failure(lazily("the missing module", () => import(MISSING)));
    expect(error.what).toBe("the missing module");
    expect(error.message).toStartWith("Could not load the missing module: ");
    expect(error.message).toContain("no-such-module-of-plugboard.ts");
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toBe(`Could not load the missing module: ${(error.cause as Error).message}`);
  });

  test("a module whose code throws while it loads fails the same way", async () => {
    const dir = await mkdtemp(join(tmpdir(), "plugboard-lazily-"));
    try {
      const broken = join(dir, "broken.ts");
      await writeFile(broken, 'throw new Error("boom while loading");\n');
      const error = await failure(lazily("the broken module", () => import(broken)));
      expect(error.message).toBe("Could not load the broken module: boom while loading");
      expect((error.cause as Error).message).toBe("boom while loading");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("a thrown value that is not an Error is the cause as it is", async () => {
    const error = await failure(lazily("the odd module", () => Promise.reject("not an Error")));
    expect(error.message).toBe("Could not load the odd module: not an Error");
    expect(error.cause).toBe("not an Error");
  });
});

describe("lazilySync", () => {
  test("gives the module it requires", () => {
    expect(lazilySync("the lazy loader", () => require("./lazily.ts") as typeof import("./lazily.ts")).lazily).toBe(lazily);
  });

  test("a module that cannot be required fails naming what was loading, its error kept as the cause", () => {
    let error: unknown;
    try {
      lazilySync("the missing module", () => require(MISSING));
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(LazyLoadError);
    const { what, message, cause } = error as LazyLoadError;
    expect(what).toBe("the missing module");
    expect(cause).toBeInstanceOf(Error);
    expect(message).toBe(`Could not load the missing module: ${(cause as Error).message}`);
    expect(message).toContain("no-such-module-of-plugboard.ts");
  });
});
