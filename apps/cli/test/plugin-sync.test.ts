import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { STACK_FRAME, plugboard, tempFolder } from "./helpers.ts";

// Each command starts real processes (the harness; for plugin check, bun pm pack and the sandbox too).
setDefaultTimeout(120_000);

/** The CLI's node_modules: core, the kit and TypeBox, for plugins made in a temp folder. */
const CLI_MODULES = fileURLToPath(new URL("../node_modules", import.meta.url));

/** A manifest whose tools are out of date: one description changed, one tool missing, one gone; other keys in an order and style of their own. */
const STALE = `{
  "name": "plugboard-plugin-echoes",
  "version": "0.1.0",
  "contract": "^1.0.0",
  "entry": "./src/index.ts",
  "permissions": [],
  "tools": [
    { "name": "echo", "description": "Say it again." },
    { "name": "whisper", "description": "Say it quietly." }
  ],
  "optionalPermissions": ["network"]
}
`;

const CODE = `import { definePlugin, defineTool, textResult, Type } from "@plugboard/core";

const Text = Type.Object({ text: Type.String() }, { additionalProperties: false });

export default definePlugin({
  options: Type.Object({}, { additionalProperties: false }),
  tools: () => [
    defineTool({ name: "echo", description: "Repeat the text. Nothing else.", parameters: Text, handler: async ({ text }) => textResult(text) }),
    defineTool({
      name: "shout",
      description: "Repeat the text\\nin capitals.",
      parameters: Text,
      handler: async ({ text }) => textResult(text.toUpperCase()),
    }),
  ],
});
`;

const PACKAGE = JSON.stringify({
  name: "plugboard-plugin-echoes",
  version: "0.1.0",
  type: "module",
  exports: { ".": "./src/index.ts", "./plugboard.plugin.json": "./plugboard.plugin.json", "./package.json": "./package.json" },
  files: ["src", "plugboard.plugin.json"],
  peerDependencies: { "@plugboard/core": "^0.1.0" },
});

let dir = "";
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempFolder());
});
afterAll(() => remove());

/** A plugin folder in the temp folder, its dependencies linked from the CLI's. */
async function pluginFolder(name: string, files: Record<string, string>): Promise<string> {
  const folder = join(dir, name);
  const all = { "package.json": PACKAGE, "plugboard.plugin.json": STALE, "src/index.ts": CODE, ...files };
  for (const [path, content] of Object.entries(all)) await Bun.write(join(folder, path), content);
  await symlink(CLI_MODULES, join(folder, "node_modules"));
  return folder;
}

const manifestOf = (folder: string) => readFile(join(folder, "plugboard.plugin.json"), "utf8");

describe("plugboard plugin sync", () => {
  test("rewrites only the manifest's tools from the code, says what changed, exit 0; then it is up to date", async () => {
    const folder = await pluginFolder("stale", {});
    const result = await plugboard(["plugin", "sync", "stale"], { cwd: dir });
    expect(result).toEqual({
      code: 0,
      stdout: [
        "Updated the tools of stale/plugboard.plugin.json:",
        '  changed the description of echo: "Say it again." → "Repeat the text."',
        '  added shout: "Repeat the text in capitals."',
        "  removed whisper",
        "",
      ].join("\n"),
      stderr: "",
    });
    const synced = await manifestOf(folder);
    expect(JSON.parse(synced)).toEqual({
      ...JSON.parse(STALE),
      tools: [
        { name: "echo", description: "Repeat the text." },
        { name: "shout", description: "Repeat the text in capitals." },
      ],
    });
    // The other keys keep their order and their style; only "tools" was written.
    expect(Object.keys(JSON.parse(synced))).toEqual(Object.keys(JSON.parse(STALE)));
    expect(synced).toStartWith(STALE.slice(0, STALE.indexOf('"tools"')));
    expect(synced).toEndWith('  ],\n  "optionalPermissions": ["network"]\n}\n');

    // DIR defaults to the current folder.
    const again = await plugboard(["plugin", "sync"], { cwd: folder });
    expect(again).toEqual({ code: 0, stdout: "plugboard.plugin.json is up to date: echo, shout.\n", stderr: "" });
  });

  test("--check exits 1 on an out-of-date manifest, writing nothing, and 0 once it is synced", async () => {
    const folder = await pluginFolder("checked", {});
    const stale = await plugboard(["plugin", "sync", "--check", folder], { cwd: dir });
    expect(stale.code).toBe(1);
    expect(stale.stdout).toStartWith("checked/plugboard.plugin.json is out of date; plugboard plugin sync would change its tools:\n");
    expect(stale.stdout).toContain("  removed whisper\n");
    expect(await manifestOf(folder)).toBe(STALE);

    expect((await plugboard(["plugin", "sync", folder], { cwd: dir })).code).toBe(0);
    const fresh = await plugboard(["plugin", "sync", "--check", folder], { cwd: dir });
    expect(fresh).toEqual({ code: 0, stdout: "checked/plugboard.plugin.json is up to date: echo, shout.\n", stderr: "" });
  });

  test("a plugin whose entry throws as it is imported: one line saying so, exit 2, the manifest untouched", async () => {
    const folder = await pluginFolder("throws", { "src/index.ts": `throw new Error("the settings file is missing");\n` });
    const result = await plugboard(["plugin", "sync", folder], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "plugboard: Plugin plugboard-plugin-echoes could not be loaded to list its tools: its entry ./src/index.ts failed to load: the settings file is missing. Fix that, then run plugboard plugin sync again.\n",
    );
    expect(result.stderr).not.toContain(STACK_FRAME);
    expect(await manifestOf(folder)).toBe(STALE);
  });

  test("a folder without a manifest, exit 2 with one line", async () => {
    const result = await plugboard(["plugin", "sync", "."], { cwd: dir });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: `plugboard: There is no plugboard.plugin.json in ${dir}; plugboard plugin sync updates the tools of an existing manifest.\n`,
    });
  });
});

describe("plugboard plugin check on an out-of-date manifest", () => {
  test("fails the tools check with what sync would change, and plugboard plugin sync as the fix", async () => {
    const folder = await pluginFolder("unsynced", {});
    const result = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      [
        "✗ the entry loads and returns exactly the manifest's tools",
        "    the manifest's tools are not the code's; plugboard plugin sync would change them:",
        '      changed the description of echo: "Say it again." → "Repeat the text."',
        '      added shout: "Repeat the text in capitals."',
        "      removed whisper",
        `    fix: Run plugboard plugin sync ${folder}: it writes each tool's name and the first sentence of its description, from the code, into plugboard.plugin.json.`,
      ].join("\n"),
    );
  });

  test("a new plugin's texts and tests name it, say where to start, and pass its own bun test and plugin check as generated", async () => {
    expect((await plugboard(["plugin", "new", "text-stats"], { cwd: dir })).code).toBe(0);
    const folder = join(dir, "plugboard-plugin-text-stats");
    await symlink(CLI_MODULES, join(folder, "node_modules"));
    const read = (path: string) => readFile(join(folder, path), "utf8");
    const tool = await read("src/text-stats.ts");
    expect(tool).toContain('description: "Report how many lines a UTF-8 text file in the workspace has (the example text_stats starts from).",');
    expect(tool).toContain("// START HERE: say in one sentence what text_stats does");
    expect((await read("README.md")).split("\n").slice(0, 4).join(" ")).toContain("`text_stats` is a working example");
    const texts = await Promise.all(["src/text-stats.ts", "src/text-stats.test.ts", "README.md", "package.json", "plugboard.plugin.json"].map(read));
    // Nothing left of the word-count example the template used to be.
    for (const text of texts) expect(text).not.toMatch(/\bwords\b|word_count|characters/);
    expect(await read("src/text-stats.test.ts")).toContain('test("text_stats reports the lines of a file"');

    const tested = Bun.spawnSync(["bun", "test"], { cwd: folder, env: { ...process.env, NO_COLOR: "1" }, stderr: "pipe", stdout: "pipe" });
    expect(tested.stderr.toString()).toMatch(/ 0 fail\n/);
    expect(tested.exitCode).toBe(0);
    const checked = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(checked.stdout).not.toContain("✗");
    expect(checked.code).toBe(0);
  });

  test("a scaffolded plugin whose tool was renamed and described anew passes every check right after plugin sync", async () => {
    expect((await plugboard(["plugin", "new", "tally"], { cwd: dir })).code).toBe(0);
    const folder = join(dir, "plugboard-plugin-tally");
    await symlink(CLI_MODULES, join(folder, "node_modules"));
    const tool = join(folder, "src/tally.ts");
    const code = (await readFile(tool, "utf8"))
      .replace('name: "tally"', 'name: "tally_words"')
      .replace(/description: "Report [^"]*"/, 'description: "Tally the words of a UTF-8 text file. Lines and characters too."');
    await writeFile(tool, code);

    const before = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(before.code).toBe(1);
    expect(before.stdout).toContain("    fix: Run plugboard plugin sync");

    const sync = await plugboard(["plugin", "sync", folder], { cwd: dir });
    expect(sync.stdout).toBe(
      'Updated the tools of plugboard-plugin-tally/plugboard.plugin.json:\n  added tally_words: "Tally the words of a UTF-8 text file."\n  removed tally\n',
    );
    const after = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(after.stdout).toContain("✓ the entry loads and returns exactly the manifest's tools\n");
    expect(after.code).toBe(0);
  });
});

describe("plugboard plugin sync --help", () => {
  test("its help says what it writes and what --check does", async () => {
    const help = await plugboard(["plugin", "sync", "--help"], { cwd: dir });
    expect(help.stdout).toStartWith("Usage: plugboard plugin sync [flags] [DIR]\n\nWrite the manifest's tool list from the plugin's code.\n");
    expect(help.stdout).toContain("the first sentence of its description");
    expect(help.stdout).toMatch(/\n {2}--check +write nothing; exit 1 when the manifest's tools are out of date\n/);
  });
});
