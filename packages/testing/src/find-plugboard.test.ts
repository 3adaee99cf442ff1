import { expect, test } from "bun:test";
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findPlugboard, GET_PLUGBOARD } from "./find-plugboard.ts";

/** A temp tree: `project/plugin` (the plugin), `project/node_modules/.bin` and `bin` (for PATH); removed when done. */
async function tree() {
  const base = await realpath(await mkdtemp(join(tmpdir(), "plugboard-find-")));
  const plugin = join(base, "project", "plugin");
  await mkdir(plugin, { recursive: true });
  await mkdir(join(base, "bin"));
  const executable = async (path: string) => {
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, "#!/bin/sh\n");
    await chmod(path, 0o755);
    return path;
  };
  return { base, plugin, executable, [Symbol.asyncDispose]: () => rm(base, { recursive: true, force: true }) };
}

test("the plugboard given comes first: a path, or a command line", async () => {
  await using t = await tree();
  expect(findPlugboard(t.plugin, "/opt/plugboard", { PLUGBOARD_BIN: "/elsewhere" })).toEqual({ command: ["/opt/plugboard"], from: "the plugboard option" });
  expect(findPlugboard(t.plugin, ["bun", "main.ts"], {})).toEqual({ command: ["bun", "main.ts"], from: "the plugboard option" });
  expect(findPlugboard(t.plugin, [], {})).toBe(`the plugboard option names no command: ${GET_PLUGBOARD}`);
});

test("then $PLUGBOARD_BIN, which must be an executable file", async () => {
  await using t = await tree();
  const named = await t.executable(join(t.base, "my-plugboard"));
  expect(findPlugboard(t.plugin, undefined, { PLUGBOARD_BIN: named })).toEqual({ command: [named], from: "PLUGBOARD_BIN" });
  await writeFile(join(t.base, "plain"), "");
  expect(findPlugboard(t.plugin, undefined, { PLUGBOARD_BIN: join(t.base, "plain") })).toBe(
    `PLUGBOARD_BIN names ${join(t.base, "plain")}, which is not an executable file: ${GET_PLUGBOARD}`,
  );
});

test("then node_modules/.bin/plugboard in the plugin's folder or one above, then plugboard on PATH", async () => {
  await using t = await tree();
  const onPath = await t.executable(join(t.base, "bin", "plugboard"));
  expect(findPlugboard(t.plugin, undefined, { PATH: join(t.base, "bin") })).toEqual({ command: [onPath], from: onPath });
  const installed = await t.executable(join(t.base, "project", "node_modules", ".bin", "plugboard"));
  expect(findPlugboard(t.plugin, undefined, { PATH: join(t.base, "bin") })).toEqual({ command: [installed], from: installed });
});

test("none found: why, and how to get one", async () => {
  await using t = await tree();
  expect(findPlugboard(t.plugin, undefined, { PATH: join(t.base, "bin") })).toBe(
    `no plugboard was found (none given, no PLUGBOARD_BIN, none in node_modules/.bin at or above ${t.plugin}, none on PATH): ${GET_PLUGBOARD}`,
  );
});
