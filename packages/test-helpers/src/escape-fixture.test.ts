import { expect, test } from "bun:test";
import { lstat, readdir, readFile, readlink, realpath } from "node:fs/promises";
import { join } from "node:path";
import { ESCAPE_LINKS, escapeFixture, escapePaths } from "./escape-fixture.ts";

test("root holds only the three links out, outside only the secret", async () => {
  await using fixture = await escapeFixture("plugboard-escape-test");
  expect(fixture.base).toBe(await realpath(fixture.base));
  expect([fixture.root, fixture.outside]).toEqual([join(fixture.base, "root"), join(fixture.base, "outside")]);
  expect((await readdir(fixture.root)).sort()).toEqual(["dangling-out", "outside-dir", "secret-link"]);
  expect(await readdir(fixture.outside)).toEqual(["secret.txt"]);
  expect(await readFile(join(fixture.outside, "secret.txt"), "utf8")).toBe("secret");
  const target = (link: string) => readlink(join(fixture.root, link));
  expect(await target(ESCAPE_LINKS.file)).toBe(join(fixture.outside, "secret.txt"));
  expect(await target(ESCAPE_LINKS.folder)).toBe(fixture.outside);
  expect(await target(ESCAPE_LINKS.dangling)).toBe(join(fixture.outside, "planted.txt"));
  expect(await Bun.file(join(fixture.outside, "planted.txt")).exists()).toBe(false);
});

test("remove() and leaving an await using block delete the whole folder", async () => {
  const fixture = await escapeFixture();
  await fixture.remove();
  expect(await lstat(fixture.base).catch(() => "gone")).toBe("gone");
  let base = "";
  {
    await using disposed = await escapeFixture();
    base = disposed.base;
    expect((await lstat(base)).isDirectory()).toBe(true);
  }
  expect(await lstat(base).catch(() => "gone")).toBe("gone");
});

test("escapePaths lists the four ways out, each leading into outside/", async () => {
  await using fixture = await escapeFixture();
  expect(escapePaths("planted.txt")).toEqual([
    ["a parent climb", "../outside/planted.txt"],
    ["a symlinked file", "secret-link"],
    ["a symlinked parent folder", "outside-dir/planted.txt"],
    ["a dangling symlink to a not-yet-existing file", "dangling-out"],
  ]);
  // Followed on disk, the first three reach the secret outside the workspace (the fourth, a file not there yet).
  for (const [, path] of escapePaths().slice(0, 3)) expect(await readFile(join(fixture.root, path), "utf8")).toBe("secret");
});
