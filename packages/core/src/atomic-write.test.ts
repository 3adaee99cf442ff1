import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeFileAtomic } from "./atomic-write.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "plugboard-atomic-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("writeFileAtomic", () => {
  test("creates parent folders and returns the UTF-8 byte count", async () => {
    const target = join(dir, "a/b/c.txt");
    expect(await writeFileAtomic(target, "héllo ✓")).toBe(10);
    expect(await readFile(target, "utf8")).toBe("héllo ✓");
  });

  test("replaces an existing file and keeps its mode", async () => {
    const target = join(dir, "script.sh");
    await writeFile(target, "old");
    await chmod(target, 0o750);
    await writeFileAtomic(target, "new");
    expect(await readFile(target, "utf8")).toBe("new");
    expect((await stat(target)).mode & 0o777).toBe(0o750);
  });

  test("leaves no temp file behind, on success or on failure", async () => {
    const folder = join(dir, "clean");
    await writeFileAtomic(join(folder, "x.txt"), "x");
    await expect(writeFileAtomic(join(folder, "x.txt", "under-a-file"), "y")).rejects.toThrow();
    expect(await readdir(folder)).toEqual(["x.txt"]);
  });

  test("refuses to write over a folder and leaves it intact", async () => {
    const folder = join(dir, "folder");
    await writeFileAtomic(join(folder, "inner.txt"), "inner");
    await expect(writeFileAtomic(folder, "data")).rejects.toThrow();
    expect(await readdir(folder)).toEqual(["inner.txt"]);
  });
});
