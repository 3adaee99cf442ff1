import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CONTRACT_VERSION } from "@plugboard/core";
import { detectMechanism } from "@plugboard/sandbox";
import corePackage from "@plugboard/core/package.json" with { type: "json" };
import testingPackage from "@plugboard/testing/package.json" with { type: "json" };
import rootPackage from "../../../package.json" with { type: "json" };
import templatePackage from "../templates/plugin/package.json" with { type: "json" };
import { TEMPLATE_DIR } from "../src/plugin-template.ts";
import { STACK_FRAME, plugboard, tempFolder } from "./helpers.ts";

// plugin check starts real processes (the harness, bun pm pack, a plugboard serving the plugin
// confined): a bound for a hang, not a timing, with room for a busy machine.
setDefaultTimeout(60_000);

const PLUGINS = fileURLToPath(new URL("../../../plugins/", import.meta.url));
const BUGGY = fileURLToPath(new URL("./fixtures/buggy-plugin", import.meta.url));
let dir = "";
let remove = async () => {};

beforeAll(async () => {
  ({ dir, remove } = await tempFolder({ "occupied/keep.txt": "mine\n", "a-file": "" }));
});
afterAll(() => remove());

const readJson = async (path: string) => JSON.parse(await readFile(path, "utf8"));

describe("plugboard plugin new", () => {
  test("scaffolds plugboard-plugin-NAME with package.json, manifest, README, an example tool and tests", async () => {
    const result = await plugboard(["plugin", "new", "notes"], { cwd: dir });
    const folder = join(dir, "plugboard-plugin-notes");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Created plugboard-plugin-notes in ${folder}:`);
    expect(result.stdout).toContain("Next:\n  cd plugboard-plugin-notes\n  bun install\n  bun test\n");
    expect(result.stdout).toContain('{ "package": "plugboard-plugin-notes", "permissions": ["fs.read"] }');
    const files = (await readdir(folder, { recursive: true })).sort();
    expect(files).toEqual(
      [".gitignore", "README.md", "package.json", "plugboard.check.json", "plugboard.plugin.json", "src", "src/index.test.ts", "src/index.ts"]
        .concat(["src/notes.test.ts", "src/notes.ts", "tsconfig.json"])
        .sort(),
    );

    const pkg = await readJson(join(folder, "package.json"));
    expect(pkg).toMatchObject({
      name: "plugboard-plugin-notes",
      version: "0.1.0",
      type: "module",
      exports: { ".": "./src/index.ts", "./plugboard.plugin.json": "./plugboard.plugin.json" },
      files: ["src", "!src/**/*.test.ts", "plugboard.plugin.json", "README.md"],
      peerDependencies: { "@plugboard/core": "^0.1.0" },
      devDependencies: { "@plugboard/testing": "^0.1.0" },
    });
    expect(pkg.dependencies).toBeUndefined();
    const manifest = await readJson(join(folder, "plugboard.plugin.json"));
    expect(manifest).toMatchObject({ name: pkg.name, version: pkg.version, contract: "^1.0.0", entry: "./src/index.ts", permissions: ["fs.read"] });
    expect(Bun.semver.satisfies(CONTRACT_VERSION, manifest.contract)).toBe(true);
    expect(manifest.tools.map((tool: { name: string }) => tool.name)).toEqual(["notes"]);
    const tool = await readFile(join(folder, "src/notes.ts"), "utf8");
    // The tool's name and description are written once, in its definition; plugin sync copies them into the manifest.
    expect(tool).toContain("export function notesTool({ maxFileBytes }: Readonly<Options>) {");
    expect(tool).toContain('    name: "notes",\n');
    expect(tool).not.toContain("Settings");
    expect(await readFile(join(folder, "src/index.test.ts"), "utf8")).toContain('from "@plugboard/testing/suite"');
    expect(await readFile(join(folder, "README.md"), "utf8")).toStartWith("# plugboard-plugin-notes\n");
  });

  test("a scoped NAME gets a scoped package, and --dir picks the folder; dashes become _ in the tool name", async () => {
    const result = await plugboard(["plugin", "new", "@acme/word-count", "--dir", "custom"], { cwd: dir });
    expect(result.code).toBe(0);
    expect((await readJson(join(dir, "custom/package.json"))).name).toBe("@acme/plugboard-plugin-word-count");
    const manifest = await readJson(join(dir, "custom/plugboard.plugin.json"));
    expect(manifest.tools[0].name).toBe("word_count");
    expect(await readFile(join(dir, "custom/src/index.ts"), "utf8")).toContain('import { wordCountTool } from "./word-count.ts";');
  });

  test("every file is the template's with the new names in every form, and no template name is left", async () => {
    const result = await plugboard(["plugin", "new", "@acme/line-stats", "--dir", "line-stats"], { cwd: dir });
    expect(result.code).toBe(0);
    const folder = join(dir, "line-stats");
    const read = (path: string) => readFile(join(folder, path), "utf8");
    const template = (await readdir(TEMPLATE_DIR, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    const written = (await readdir(folder, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile());
    expect(written).toHaveLength(template.length);
    for (const entry of written) {
      expect(`${entry.name}: ${await Bun.file(join(entry.parentPath, entry.name)).text()}`).not.toMatch(/word-count|word_count|WORD_COUNT|wordCount|WordCount/);
    }
    expect(await read("src/index.ts")).toContain('import { lineStatsTool } from "./line-stats.ts";');
    expect(await read("src/index.ts")).toContain("tools: (options) => [lineStatsTool(options)],");
    expect(await read("src/line-stats.ts")).toContain('    name: "line_stats",\n');
    expect(await read("src/line-stats.test.ts")).toContain('mkdtemp(join(tmpdir(), "line-stats-"))');
    expect(await read("src/line-stats.test.ts")).toContain('tool("line_stats")');
    expect(await read("README.md")).toStartWith("# @acme/plugboard-plugin-line-stats\n");
    expect((await readJson(join(folder, "plugboard.plugin.json"))).name).toBe("@acme/plugboard-plugin-line-stats");
    expect(await read(".gitignore")).toBe("node_modules/\n*.tgz\n");
  });

  test("the full package name is accepted as NAME too", async () => {
    const result = await plugboard(["plugin", "new", "plugboard-plugin-lint", "--dir", "lint"], { cwd: dir });
    expect(result.code).toBe(0);
    expect((await readJson(join(dir, "lint/package.json"))).name).toBe("plugboard-plugin-lint");
  });

  test("refuses a folder that is not empty, exit 2, and leaves it alone", async () => {
    const result = await plugboard(["plugin", "new", "notes", "--dir", "occupied"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `plugboard: ${join(dir, "occupied")} is not empty, and plugboard plugin new writes only into a new or empty folder. Pick another with --dir DIR, or empty it first.\n`,
    );
    expect(await readdir(join(dir, "occupied"))).toEqual(["keep.txt"]);
  });

  test("refuses a --dir that is a file, exit 2", async () => {
    const result = await plugboard(["plugin", "new", "notes", "--dir", "a-file"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("is a file. Pick a new folder for the plugin with --dir DIR.");
  });

  test.each(["Notes", "my_tool", "-x", "a--b", "1st", "@/notes", "@Acme/notes", "x".repeat(51)])("refuses NAME %p, exit 2, with one line", async (name) => {
    const result = await plugboard(["plugin", "new", "--", name], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`NAME must be lower-case letters and digits in words joined by single dashes`);
    expect(result.stderr).toContain(`got '${name}' (see plugboard plugin new --help)`);
  });

  test("the template lists only what an author needs, at this repository's versions: core as its peer, the kit and the author's build tools", () => {
    expect(templatePackage.peerDependencies).toEqual({ "@plugboard/core": `^${corePackage.version}` });
    expect(templatePackage.devDependencies).toEqual({
      "@plugboard/testing": `^${testingPackage.version}`,
      "bun-types": rootPackage.devDependencies["bun-types"],
      typescript: rootPackage.devDependencies.typescript,
    });
    expect("dependencies" in templatePackage).toBe(false);
    // The kit brings core (and TypeBox through it); a plugin imports nothing else of ours.
    expect(Object.keys(testingPackage.dependencies).filter((name) => name.startsWith("@plugboard/")).sort()).toEqual(["@plugboard/core", "@plugboard/scripted-model"]);
  });
});

describe("plugboard plugin check", () => {
  test("passes a first-party plugin: each check with ✓ (or ! for a warning), exit 0", async () => {
    const result = await plugboard(["plugin", "check", join(PLUGINS, "read-file")], { cwd: dir });
    expect(result.code).toBe(0);
    expect(result.stdout).toStartWith(`Conformance of @plugboard/plugin-read-file@0.1.0 (${join(PLUGINS, "read-file")}):\n`);
    expect(result.stdout).toContain("✓ invalid arguments never reach a handler\n");
    expect(result.stdout).toContain("! parameter schemas fit OpenAI strict mode (optional)\n");
    expect(result.stdout).toContain(
      "✓ each model dialect can send its tools (what each rewrite drops is in the notes)\n    note: read_file: as written in openai; openai-strict strict: says optional properties.offset as required and nullable, optional properties.limit as required and nullable; gemini drops additionalProperties at the root\n",
    );
    // Run confined through this plugboard, where the system has the sandbox.
    expect(result.stdout).toEndWith(detectMechanism().available ? "10 passed, 1 with warnings.\n" : "9 passed, 1 with warnings, 1 skipped.\n");
  });

  test("fails a broken plugin with ✗, the problem and the fix, exit 1", async () => {
    const result = await plugboard(["plugin", "check", BUGGY], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain("✗ bad input gives Error: results, not exceptions\n    crash {}: threw TypeError: a bug in the crash tool\n    fix: Throw ToolError");
    expect(result.stdout).toContain('✗ package.json is ready to publish\n    "exports" lacks "./plugboard.plugin.json"');
    expect(result.stderr).not.toContain(STACK_FRAME);
  });

  test("--json prints the report", async () => {
    const result = await plugboard(["plugin", "check", "--json", BUGGY], { cwd: dir });
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ directory: BUGGY, plugin: "buggy-plugin@0.1.0", ok: false });
    expect(report.checks.find((check: { id: string }) => check.id === "foreseeable-errors").status).toBe("fail");
  });

  test("a scaffolded plugin checked before bun install: package.json and the manifest pass, and the code checks say what to install", async () => {
    expect((await plugboard(["plugin", "new", "fresh"], { cwd: dir })).code).toBe(0);
    const folder = join(dir, "plugboard-plugin-fresh");
    const result = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(
      [
        `Conformance of plugboard-plugin-fresh@0.1.0 (${folder}):`,
        "✓ package.json is ready to publish",
        "✓ the manifest is valid and agrees with package.json",
        "✗ the entry loads and returns exactly the manifest's tools",
        `    its dependencies are not installed: @plugboard/core (no node_modules/NAME in ${folder} or any folder above it), so its entry cannot load`,
        `    fix: Install the plugin's dependencies: run bun install in ${folder}, then check again.`,
        ...["parameter schemas fit OpenAI strict mode (optional)", "each model dialect can send its tools (what each rewrite drops is in the notes)", "invalid arguments never reach a handler", "bad input gives Error: results, not exceptions"]
          .concat(["a call stops soon after its signal aborts", "loading and calling it print nothing on stdout", "it uses only the permissions it asks for"])
          .concat(["run confined by the sandbox with its grants, it is refused nothing"])
          .flatMap((title) => [`- ${title} (skipped)`, "    the plugin's dependencies are not installed"]),
        "2 passed, 1 failed, 8 skipped.",
        "",
      ].join("\n"),
    );
  });

  test("a scaffolded plugin whose manifest's version is not package.json's, checked before bun install: that, and no install asked for", async () => {
    expect((await plugboard(["plugin", "new", "bumped"], { cwd: dir })).code).toBe(0);
    const folder = join(dir, "plugboard-plugin-bumped");
    const pkg = await readJson(join(folder, "package.json"));
    await writeFile(join(folder, "package.json"), JSON.stringify({ ...pkg, version: "0.2.0" }, null, 2));
    const result = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      "✗ the manifest is valid and agrees with package.json\n    its manifest says plugboard-plugin-bumped@0.1.0 but its package.json says plugboard-plugin-bumped@0.2.0: make the manifest's \"name\" and \"version\" equal package.json's\n",
    );
    expect(result.stdout).toContain("- the entry loads and returns exactly the manifest's tools (skipped)\n    the manifest is invalid, so no code ran\n");
    expect(result.stdout).not.toContain("bun install");
    expect(result.stdout).toEndWith("1 passed, 1 failed, 9 skipped.\n");
  });

  test("a scaffolded plugin whose peerDependencies leave out this plugboard's core, checked before bun install: the range, and the install only for the code", async () => {
    expect((await plugboard(["plugin", "new", "ahead"], { cwd: dir })).code).toBe(0);
    const folder = join(dir, "plugboard-plugin-ahead");
    const pkg = await readJson(join(folder, "package.json"));
    await writeFile(join(folder, "package.json"), JSON.stringify({ ...pkg, peerDependencies: { "@plugboard/core": "^9.0.0" } }, null, 2));
    const result = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(
      `✗ package.json is ready to publish\n    "peerDependencies"["@plugboard/core"] is ^9.0.0, which leaves out @plugboard/core ${corePackage.version}, the one it is checked with:`,
    );
    expect(result.stdout).toContain("✓ the manifest is valid and agrees with package.json\n");
    expect(result.stdout).toContain(`    fix: Install the plugin's dependencies: run bun install in ${folder}, then check again.\n`);
  });

  test("a folder that is no plugin at all is checked too: no manifest, and what package.json lacks, exit 1", async () => {
    const folder = join(dir, "no-kit");
    await mkdir(folder, { recursive: true });
    await writeFile(join(folder, "package.json"), JSON.stringify({ name: "no-kit", version: "0.1.0" }));
    const result = await plugboard(["plugin", "check", folder], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`✗ the manifest is valid and agrees with package.json\n    there is no plugboard.plugin.json in ${folder}\n`);
    expect(result.stdout).toContain('✗ package.json is ready to publish\n    "exports" lacks "./plugboard.plugin.json": "./plugboard.plugin.json"\n');
    expect(result.stderr).toBe("");
  });

  test.each(["check", "sync"])("plugin %s on a folder that does not exist: one line, exit 2", async (command) => {
    for (const folder of ["no-such-folder", "/no/such/dir"]) {
      const result = await plugboard(["plugin", command, folder], { cwd: dir });
      expect(result).toEqual({ code: 2, stdout: "", stderr: `plugboard: Plugin folder ${resolve(dir, folder)} does not exist or is not a folder.\n` });
    }
  });
});

describe("plugboard plugin usage", () => {
  test.each([
    [["plugin"], "'plugboard plugin' needs a command: plugboard plugin new NAME or plugboard plugin check DIR"],
    [["plugin"], "(see plugboard plugin --help)"],
    [["plugin", "publish"], "unknown command 'plugin publish'; use plugboard plugin new NAME or plugboard plugin check DIR"],
    [["plugin", "publish"], "(see plugboard plugin --help)"],
    [["plugin", "new"], "missing arguments; usage: plugboard plugin new [flags] NAME"],
    [["plugin", "check", "a", "b"], "too many arguments; usage: plugboard plugin check [flags] DIR"],
    [["plugin", "sync", "a", "b"], "too many arguments; usage: plugboard plugin sync [flags] [DIR]"],
    [["plugin", "sync", "--json"], "--json does not apply to 'plugboard plugin sync'"],
    [["plugin", "check", "--check", "."], "--check does not apply to 'plugboard plugin check'"],
    [["plugin", "new", "x", "--json"], "--json does not apply to 'plugboard plugin new'"],
    [["run", "--dir", "x", "hi"], "--dir does not apply to 'plugboard run'"],
  ])("%p exits 2 with one line", async (args, message) => {
    const result = await plugboard(args, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(message);
  });

  test("help lists the commands, and each has its own help", async () => {
    const overview = await plugboard(["help"], { cwd: dir });
    expect(overview.stdout).toContain("plugboard plugin new NAME");
    expect(overview.stdout).toContain("plugboard plugin check DIR");
    expect(overview.stdout).toContain("plugboard plugin sync [DIR]");
    const help = await plugboard(["help", "plugin", "new"], { cwd: dir });
    expect(help.stdout).toStartWith("Usage: plugboard plugin new [flags] NAME\n");
    expect(help.stdout).toContain("--dir DIR");
    const check = await plugboard(["plugin", "check", "--help"], { cwd: dir });
    expect(check.stdout).toStartWith("Usage: plugboard plugin check [flags] DIR\n");
    expect(check.stdout).toContain("--json");
  });

  test.each([[["help", "plugin"]], [["plugin", "--help"]], [["plugin", "-h"]]])("%p prints the plugin commands, one line each, and exits 0", async (args) => {
    const result = await plugboard(args, { cwd: dir });
    expect(result).toEqual({
      code: 0,
      stderr: "",
      stdout: [
        "Usage: plugboard plugin COMMAND [flags]",
        "",
        "Write, check, add and remove plugins, and accept pinned tools that changed.",
        "",
        "Commands:",
        "  plugboard plugin new NAME          scaffold a plugin package, ready to test and publish",
        "  plugboard plugin check DIR         run the conformance checks on a plugin folder",
        "  plugboard plugin sync [DIR]        write the manifest's tool list from the plugin's code",
        "  plugboard plugin add PACKAGE|PATH  enable a plugin: a package or tarball installed beside the config, or a folder",
        "  plugboard plugin remove NAME|PATH  disable a plugin, uninstall its package and drop its pins",
        "  plugboard plugin accept NAME       offer a pinned plugin's or MCP server's changed tools to the model again",
        "",
        "Each command's flags: plugboard plugin COMMAND --help.",
        "",
      ].join("\n"),
    });
  });
});
