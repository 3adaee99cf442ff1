/**
 * `plugboard plugin add` and `remove` without a registry: the package is a folder installed
 * with `bun add NAME@file:PATH`. The whole path through a real registry, where the plugin
 * also loads and runs, is the release package's registry test.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { plugboard, spawnInTerminal, STACK_FRAME, tempFolder } from "./helpers.ts";

const NAME = "@fixture/notes";

/** A plugin package folder whose code cannot load here (its @plugboard/core is not installed beside it). */
function pluginFiles(): Record<string, string> {
  const manifest = {
    name: NAME,
    version: "1.0.0",
    contract: "^1.0.0",
    entry: "./index.ts",
    tools: [{ name: "notes", description: "Read the notes." }],
    permissions: ["fs.read"],
    optionalPermissions: ["network"],
  };
  return {
    "plugin/package.json": JSON.stringify({ name: NAME, version: "1.0.0", type: "module" }),
    "plugin/plugboard.plugin.json": JSON.stringify(manifest),
    "plugin/index.ts": 'export { default } from "@plugboard/core/no-such-module";\n',
    "app/notes.txt": "hello\n",
  };
}

describe("plugboard plugin add", () => {
  test("without a terminal and without --yes it refuses before installing anything", async () => {
    await using folder = await tempFolder(pluginFiles());
    const app = join(folder.dir, "app");
    const result = await plugboard(["plugin", "add", `${NAME}@file:${join(folder.dir, "plugin")}`], { cwd: app });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`plugin add asks you to grant ${NAME}'s permissions, and there is no terminal to ask on; pass --yes to grant them`);
    expect(existsSync(join(app, "package.json"))).toBe(false);
    expect(existsSync(join(app, "plugboard.config.json"))).toBe(false);
  });

  test("on a terminal it shows the tools and permissions; declined, it uninstalls and leaves the config alone", async () => {
    await using folder = await tempFolder(pluginFiles());
    const app = join(folder.dir, "app");
    const config = '// mine\n{ "plugins": [] }\n';
    await writeFile(join(app, "plugboard.config.json"), config);
    const cli = spawnInTerminal(["plugin", "add", `${NAME}@file:${join(folder.dir, "plugin")}`], { cwd: app });
    await cli.waitFor("[y/N]");
    expect(cli.screen()).toContain(`${NAME} 1.0.0\r\n  tools:\r\n    notes  Read the notes.\r\n  permissions it asks for:\r\n    fs.read        read files in the workspace\r\n`);
    expect(cli.screen()).toContain("  permissions it can use if you grant them (optional):\r\n    network        open network connections\r\n");
    expect(cli.screen()).toContain(`Grant fs.read to ${NAME}? [y/N]`);
    cli.type("n\r");
    expect(await cli.exited()).toBe(1);
    expect(cli.screen()).toContain(`Not added: ${NAME} is uninstalled and ${join(app, "plugboard.config.json")} is unchanged.`);
    expect(await readFile(join(app, "plugboard.config.json"), "utf8")).toBe(config);
    expect(existsSync(join(app, "node_modules", NAME))).toBe(false);
    expect(JSON.parse(await readFile(join(app, "package.json"), "utf8")).dependencies?.[NAME]).toBeUndefined();
  }, 30_000);

  test("with --yes, a plugin that fails the check is taken out again: config and folder as they were", async () => {
    await using folder = await tempFolder(pluginFiles());
    const app = join(folder.dir, "app");
    const result = await plugboard(["plugin", "add", `${NAME}@file:${join(folder.dir, "plugin")}`, "--yes"], { cwd: app });
    expect(result.code).toBe(2);
    expect(result.stdout).toContain(`Added ${NAME} to ${join(app, "plugboard.config.json")} with permissions [fs.read].`);
    expect(result.stderr).toContain(`--yes grants only what ${NAME} needs; to let it also open network connections, add network to its "permissions"`);
    expect(result.stderr).toContain(`${NAME} was not added: the check failed`);
    expect(result.stderr).toContain(`Plugin ${NAME}`);
    expect(result.stderr).not.toContain(STACK_FRAME);
    expect(existsSync(join(app, "plugboard.config.json"))).toBe(false);
    expect(existsSync(join(app, "node_modules", NAME))).toBe(false);
  }, 30_000);
});

describe("plugboard plugin add on a config that lists the package or asks", () => {
  test("a package listed already is Updated, not Added; a policy that asks says so", async () => {
    await using folder = await tempFolder(pluginFiles());
    const app = join(folder.dir, "app");
    const config = [
      "{",
      '  "plugins": [',
      `    { "package": "${NAME}", "permissions": [] },`,
      '    { "package": "@plugboard/plugin-glob", "permissions": ["fs.read"] }',
      "  ],",
      '  "policy": { "default": "ask", "rules": [{ "tool": "glob", "action": "allow" }] }',
      "}",
      "",
    ].join("\n");
    await writeFile(join(app, "plugboard.config.json"), config);
    const result = await plugboard(["plugin", "add", `${NAME}@file:${join(folder.dir, "plugin")}`, "--yes"], { cwd: app });
    expect(result.stdout).toContain(`Updated ${NAME} in ${join(app, "plugboard.config.json")} with permissions [fs.read].\n`);
    expect(result.stdout).not.toContain("Added");
    expect(result.stdout).toContain("The config's policy will ask before notes runs (its default is ask): approve each call when asked, or run with --yes.\n");
    // This fixture cannot load, so the check fails and the config is put back as it was.
    expect(result.code).toBe(2);
    expect(await readFile(join(app, "plugboard.config.json"), "utf8")).toBe(config);
  }, 30_000);

  test("a rule that asks about the new tool is named; a policy that allows it says nothing", async () => {
    await using folder = await tempFolder(pluginFiles());
    const app = join(folder.dir, "app");
    const asks = '{ "plugins": [], "policy": { "rules": [{ "tool": "no*", "action": "ask" }] } }\n';
    await writeFile(join(app, "plugboard.config.json"), asks);
    const asked = await plugboard(["plugin", "add", `${NAME}@file:${join(folder.dir, "plugin")}`, "--yes"], { cwd: app });
    expect(asked.stdout).toContain(`Added ${NAME} to ${join(app, "plugboard.config.json")} with permissions [fs.read].\n`);
    expect(asked.stdout).toContain("The config's policy will ask before notes runs (rule no* → ask): approve each call when asked, or run with --yes.\n");
    await writeFile(join(app, "plugboard.config.json"), '{ "plugins": [], "policy": { "default": "ask", "rules": [{ "tool": "notes", "action": "allow" }] } }\n');
    const allowed = await plugboard(["plugin", "add", `${NAME}@file:${join(folder.dir, "plugin")}`, "--yes"], { cwd: app });
    expect(allowed.stdout).toContain(`Added ${NAME}`);
    expect(allowed.stdout).not.toContain("policy will ask");
  }, 60_000);
});

describe("plugboard plugin remove", () => {
  test("a package neither listed nor installed: exit 2, nothing to remove", async () => {
    await using folder = await tempFolder({ "plugboard.config.json": '{ "plugins": [] }' });
    const result = await plugboard(["plugin", "remove", NAME], { cwd: folder.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${NAME} is not in the plugins of ${join(folder.dir, "plugboard.config.json")}, nor installed in ${folder.dir}: nothing to remove.`);
  });

  test("a listed entry is taken out, comments kept, even when the package is not installed", async () => {
    const config = `{\n  // read-only\n  "plugins": [{ "package": "${NAME}", "permissions": ["fs.read"] }]\n}\n`;
    await using folder = await tempFolder({ "plugboard.config.json": config });
    const result = await plugboard(["plugin", "remove", NAME], { cwd: folder.dir });
    expect(result).toMatchObject({ code: 0, stdout: `Removed ${NAME}: its entry in ${join(folder.dir, "plugboard.config.json")}.\n` });
    const after = await readFile(join(folder.dir, "plugboard.config.json"), "utf8");
    expect(after).toContain("// read-only");
    expect(after).not.toContain(NAME);
  });
});
