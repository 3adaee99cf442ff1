import { afterEach, expect, test } from "bun:test";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeTempDirs, tempDir } from "@plugboard/test-helpers";
import { pathSteps } from "./path-steps.ts";

afterEach(() => removeTempDirs());

const walk = (path: string) => pathSteps(path)?.map(({ path: at, link }) => `${link ? "link" : "file"} ${at}`);

test("each link met on the way, a folder's, a relative, an absolute and a chained one, then the file at its real location", async () => {
  const dir = await tempDir();
  mkdirSync(join(dir, "real"));
  writeFileSync(join(dir, "real", "local.env"), "x\n");
  symlinkSync("local.env", join(dir, "real", "middle.env"));
  symlinkSync(join(dir, "real", "middle.env"), join(dir, "real", ".env"));
  symlinkSync("real", join(dir, "conf"));
  expect(walk(join(dir, "conf", ".env"))).toEqual([
    `link ${join(dir, "conf")}`,
    `link ${join(dir, "real", ".env")}`,
    `link ${join(dir, "real", "middle.env")}`,
    `file ${join(dir, "real", "local.env")}`,
  ]);
  expect(walk(join(dir, "real", "..", "conf", ".", "local.env"))).toEqual([`link ${join(dir, "conf")}`, `file ${join(dir, "real", "local.env")}`]);
});

test("a missing file, a dangling link and links that go round have no steps", async () => {
  const dir = await tempDir();
  symlinkSync("nowhere", join(dir, "dangling"));
  symlinkSync("b", join(dir, "a"));
  symlinkSync("a", join(dir, "b"));
  expect([pathSteps(join(dir, "missing")), pathSteps(join(dir, "dangling")), pathSteps(join(dir, "a"))]).toEqual([undefined, undefined, undefined]);
});
