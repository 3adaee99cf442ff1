import { afterEach, describe, expect, test } from "bun:test";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PlugboardError } from "@plugboard/errors";
import { emptyLock, fingerprintOf, lockFileOf, readLock, stableJson, writeLock } from "./lock-file.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function lockPath(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "plugboard-lock-"));
  dirs.push(dir);
  return lockFileOf(join(dir, "plugboard.config.json"));
}

describe("plugboard.lock.json", () => {
  test("is written as sorted, stable JSON, whatever order the tools came in, and read back", async () => {
    const path = await lockPath();
    const lock = { version: 1 as const, tools: { zeta: { b: fingerprintOf("B.", {}), a: fingerprintOf("A.", { type: "object" }) }, alpha: {} } };
    await writeLock(path, lock);
    const text = await readFile(path, "utf8");
    expect(text).toBe(`${stableJson(lock)}\n`);
    expect(text.indexOf('"alpha"')).toBeLessThan(text.indexOf('"zeta"'));
    expect(text.indexOf('"a"')).toBeLessThan(text.indexOf('"b"'));
    expect(text.indexOf('"tools"')).toBeLessThan(text.indexOf('"version"'));
    expect(await readLock(path)).toEqual(lock);
  });

  test("a schema's fingerprint does not depend on its keys' order", () => {
    expect(fingerprintOf("d", { type: "object", properties: { a: {} } })).toEqual(fingerprintOf("d", { properties: { a: {} }, type: "object" }));
    expect(fingerprintOf("d", { type: "object" }).schema).not.toBe(fingerprintOf("d", { type: "object", properties: {} }).schema);
  });

  test("no file is an empty lock; a file that is not a lock is a config error with the fix", async () => {
    const path = await lockPath();
    expect(await readLock(path)).toEqual(emptyLock());
    await writeFile(path, "{ not json");
    const error = await readLock(path).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlugboardError);
    expect((error as PlugboardError).code).toBe("CONFIG_INVALID");
    expect((error as PlugboardError).message.split("\n")).toEqual([
      `The lock file ${path} is not one this Plugboard can read:`,
      expect.stringMatching(/^ {2}line 1, column 3: /),
      "Restore it from version control, or delete it: the tools of every mounted MCP server and third-party plugin, and the code of every plugin plugboard does not ship, are then pinned afresh as they are next loaded.",
    ]);
    await writeFile(path, JSON.stringify({ version: 1, tools: { s: { t: { description: "d", schema: "md5:1" } } } }));
    expect(((await readLock(path).catch((caught: unknown) => caught)) as Error).message).toContain("  tools.s.t.schema: expected sha256: and 64 hex digits, got ");
  });
});
