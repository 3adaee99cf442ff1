import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { cp, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KitError } from "./errors.ts";
import { syncManifest } from "./sync-manifest.ts";
import { changeLine } from "./tool-list.ts";

// Each sync starts a real process (the harness): a bound for a hang, not a timing.
setDefaultTimeout(60_000);

const fixture = (name: string) => join(import.meta.dir, "../test/fixtures", name);
const temp = await realpath(await mkdtemp(join(tmpdir(), "plugboard-sync-test-")));
afterAll(() => rm(temp, { recursive: true, force: true }));

/** A copy of fixture `name` outside this repository, its manifest replaced by `manifest`, resolving this package's dependencies. */
async function copyOf(name: string, manifest?: string): Promise<string> {
  const copy = join(await mkdtemp(join(temp, "plugin-")), name);
  await cp(fixture(name), copy, { recursive: true });
  await symlink(join(import.meta.dir, "../node_modules"), join(copy, "node_modules"));
  if (manifest !== undefined) await writeFile(join(copy, "plugboard.plugin.json"), manifest);
  return copy;
}

/** tools-undeclared's manifest in a style of its own: key order, inline arrays, no $schema. */
const STALE = `{
  "version": "0.1.0",
  "name": "plugboard-plugin-tools-undeclared",
  "entry": "./src/index.ts",
  "contract": "^1.0.0",
  "permissions": [],
  "tools": [{ "name": "echo", "description": "Say it again." }, { "name": "gone", "description": "Gone." }],
  "optionalPermissions": ["network"]
}
`;

describe("syncManifest", () => {
  test("rewrites only the manifest's tools, in the file's style, and says what changed", async () => {
    const copy = await copyOf("tools-undeclared", STALE);
    const sync = await syncManifest(copy);
    expect(sync.written).toBe(true);
    expect(sync.changes.map(changeLine)).toEqual([
      'changed the description of echo: "Say it again." → "Repeat the text."',
      'added shout: "Repeat the text in capitals."',
      "removed gone",
    ]);
    expect(await readFile(join(copy, "plugboard.plugin.json"), "utf8")).toBe(`{
  "version": "0.1.0",
  "name": "plugboard-plugin-tools-undeclared",
  "entry": "./src/index.ts",
  "contract": "^1.0.0",
  "permissions": [],
  "tools": [
    {
      "name": "echo",
      "description": "Repeat the text."
    },
    {
      "name": "shout",
      "description": "Repeat the text in capitals."
    }
  ],
  "optionalPermissions": ["network"]
}
`);
    const again = await syncManifest(copy);
    expect(again).toMatchObject({ changes: [], written: false });
  });

  test("with write: false it only compares", async () => {
    const copy = await copyOf("tools-undeclared", STALE);
    const sync = await syncManifest(copy, { write: false });
    expect(sync.changes).toHaveLength(3);
    expect(sync.written).toBe(false);
    expect(await readFile(join(copy, "plugboard.plugin.json"), "utf8")).toBe(STALE);
  });

  test("a manifest without tools gets them after its entry, indented with its tabs", async () => {
    const copy = await copyOf("tools-undeclared", '{\n\t"name": "plugboard-plugin-tools-undeclared",\n\t"entry": "./src/index.ts",\n\t"permissions": []\n}\n');
    await syncManifest(copy);
    expect(await readFile(join(copy, "plugboard.plugin.json"), "utf8")).toBe(
      '{\n\t"name": "plugboard-plugin-tools-undeclared",\n\t"entry": "./src/index.ts",\n\t"tools": [\n\t\t{\n\t\t\t"name": "echo",\n\t\t\t"description": "Repeat the text."\n\t\t},\n\t\t{\n\t\t\t"name": "shout",\n\t\t\t"description": "Repeat the text in capitals."\n\t\t}\n\t],\n\t"permissions": []\n}\n',
    );
  });

  test("a manifest that lists the code's tools is up to date, and left alone", async () => {
    const before = await readFile(join(fixture("conforming"), "plugboard.plugin.json"), "utf8");
    const sync = await syncManifest(fixture("conforming"));
    expect(sync).toMatchObject({ changes: [], written: false, tools: [{ name: "count_words", description: "Count the words of a text file in the workspace." }] });
    expect(await readFile(join(fixture("conforming"), "plugboard.plugin.json"), "utf8")).toBe(before);
  });

  test.each([
    [
      "an entry that throws as it is imported",
      "throws-on-import",
      "Plugin plugboard-plugin-throws-on-import could not be loaded to list its tools: its entry ./src/index.ts failed to load: the settings file is missing. Fix that, then run plugboard plugin sync again.",
    ],
    [
      "an entry that exits the process",
      "exits-on-load",
      "Plugin plugboard-plugin-exits-on-load could not be loaded to list its tools: the process ended (exit code 3) while loading it. Fix that, then run plugboard plugin sync again.",
    ],
  ])("%s is a KitError of one line, and the manifest is left alone", async (_case, name, message) => {
    const before = await readFile(join(fixture(name), "plugboard.plugin.json"), "utf8");
    const error = await syncManifest(fixture(name)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(KitError);
    expect((error as KitError).message).toBe(message);
    expect(await readFile(join(fixture(name), "plugboard.plugin.json"), "utf8")).toBe(before);
  });

  test("a plugin whose dependencies are not installed says to run bun install", async () => {
    const copy = join(await mkdtemp(join(temp, "bare-")), "conforming");
    await cp(fixture("conforming"), copy, { recursive: true });
    const error = await syncManifest(copy).catch((caught: unknown) => caught);
    expect((error as KitError).message).toBe(
      `Plugin plugboard-plugin-conforming could not be loaded to list its tools: its dependencies are not installed (@plugboard/core). Install the plugin's dependencies: run bun install in ${copy}, then run plugboard plugin sync again.`,
    );
  });

  test("a folder without a manifest, or not a folder, is refused", async () => {
    const empty = await mkdtemp(join(temp, "empty-"));
    await expect(syncManifest(empty)).rejects.toThrow(`There is no plugboard.plugin.json in ${empty}; plugboard plugin sync updates the tools of an existing manifest.`);
    await expect(syncManifest(join(empty, "nothing"))).rejects.toThrow("does not exist or is not a folder");
  });
});
