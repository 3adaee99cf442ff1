/** The READMEs' tables and samples, compared with the code and the real CLI they describe. */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { LOCAL_CONFIG_NAMES } from "../src/load-app.ts";
import { docBlocks, TYPESCRIPT } from "./doc-blocks.ts";
import { plugboard, spawnInTerminal, tempFolder } from "./helpers.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ROOT_README = readFileSync(join(ROOT, "README.md"), "utf8");
const CLI_README = readFileSync(join(ROOT, "apps/cli/README.md"), "utf8");
const PLUGINS = readdirSync(join(ROOT, "plugins"));
const DOCS = readdirSync(join(ROOT, "docs")).map((name) => `docs/${name}`);

function manifestOf(plugin: string): { name: string; permissions: string[] } {
  return JSON.parse(readFileSync(join(ROOT, "plugins", plugin, "plugboard.plugin.json"), "utf8"));
}

/** The backquoted words of one table cell. */
function codes(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? "");
}

describe("README.md's tools table", () => {
  test.each(PLUGINS)("plugins/%s: its row names exactly the manifest's permissions", (plugin) => {
    const manifest = manifestOf(plugin);
    const row = ROOT_README.split("\n").find((line) => line.includes(`[\`${manifest.name}\`]`));
    if (row === undefined) throw new Error(`README.md's tools table has no row for ${manifest.name}`);
    const permissions = codes(row.split("|").at(-2) ?? "");
    expect(permissions.sort()).toEqual([...manifest.permissions].sort());
  });
});

describe("README.md's install section", () => {
  test("explains the warnings npm prints on a global install: bun's postinstall, the openai version whose engines npm checks, and the bash grammar's install script", async () => {
    const section = ROOT_README.slice(ROOT_README.indexOf("## Install the CLI"), ROOT_README.indexOf("## Layout"));
    const bunVersion = (await Bun.file(join(ROOT, "package.json")).json()).packageManager.replace("bun@", "");
    // The tarball's one dependency (packages/release/src/pack-cli.ts takes the root's packageManager), and the registry path's Bun.
    expect(section).toContain(`(\`bun@${bunVersion}\`, the`);
    expect(section).toContain(`npm install -g bun@${bunVersion}`);
    expect(section).toContain("npm install -g --allow-scripts=bun FILE.tgz");
    expect(section).toContain(`npm warn install-scripts ... bun@${bunVersion}`);
    // The openai the CLI installs, and the Node its engines field asks for: a new SDK version must update the note.
    const cli = await Bun.file(join(ROOT, "apps/cli/package.json")).json();
    const openai = await Bun.file(join(ROOT, "apps/cli/node_modules/openai/package.json")).json();
    expect(openai.version).toBe(cli.dependencies.openai);
    expect(section).toContain(`package: 'openai@${openai.version}', required: { node: '${openai.engines.node}' }`);
    // The bash grammar the runtime installs, and its install script (a native build plugboard never uses).
    const runtime = await Bun.file(join(ROOT, "packages/runtime/package.json")).json();
    const grammar = await Bun.file(join(ROOT, "packages/runtime/node_modules/tree-sitter-bash/package.json")).json();
    expect(grammar.version).toBe(runtime.dependencies["tree-sitter-bash"]);
    expect(section).toContain(`npm warn install-scripts ... tree-sitter-bash@${grammar.version} (install: ${grammar.scripts.install})`);
  });
});

describe("apps/cli/README.md's flags table", () => {
  test("the --config row names every config file the CLI looks for in the current folder", () => {
    const row = CLI_README.split("\n").find((line) => line.startsWith("| `--config FILE` |"));
    expect(codes(row ?? "")).toEqual(expect.arrayContaining(LOCAL_CONFIG_NAMES.map((name) => `./${name}`)));
  });
});

/** The `$ plugboard check` sample's output lines in a README. */
function checkSample(readme: string): string[] {
  const start = readme.split("\n").indexOf("$ plugboard check");
  const lines = readme.split("\n").slice(start + 1);
  return lines.slice(0, lines.findIndex((line) => line.startsWith("$ ") || line.startsWith("```")));
}

/** Each line's label (`OK:`, `  policy:`, `    1.`, `             view:`): what the sample must share with the output. */
function labels(lines: readonly string[]): string[] {
  return lines.map((line) => /^\s*(?:\d+\.|[^:]+:)/.exec(line)?.[0] ?? line);
}

describe("apps/cli/README.md's plugboard check sample", () => {
  test("has the real command's lines, in order (run from the repository's root, with the shipped config)", async () => {
    const result = await plugboard(["check"], { cwd: ROOT });
    expect(result.code).toBe(0);
    const real = labels(result.stdout.trimEnd().split("\n"));
    const sample = labels(checkSample(CLI_README));
    // The layers under `sandbox:` are this kernel's: compare them only where the sample's sandbox is in force.
    const confined = /^ {2}sandbox: +Landlock/m.test(result.stdout);
    const upTo = (list: string[]) => (confined ? list : list.slice(0, list.indexOf("  sandbox:") + 1));
    expect(upTo(sample)).toEqual(upTo(real));
  });
});

describe("the manifests' $schema", () => {
  const loader = JSON.parse(readFileSync(join(ROOT, "packages/loader/package.json"), "utf8"));
  const published = `https://unpkg.com/${loader.name}/plugboard.plugin.schema.json`;

  test("is the loader's published schema file, which the loader's package ships", () => {
    expect(loader.private).toBeUndefined();
    expect(loader.files).toContain("plugboard.plugin.schema.json");
    expect(readFileSync(join(ROOT, "packages/loader/plugboard.plugin.schema.json"), "utf8")).toContain("$schema");
  });

  test.each(["README.md", "apps/cli/README.md", ...DOCS])("%s's samples name it by the same URL, never by a path", (page) => {
    const named = [...readFileSync(join(ROOT, page), "utf8").matchAll(/"\$schema":\s*"([^"]*plugboard\.plugin\.schema\.json)"/g)].map((match) => match[1]);
    for (const schema of named) expect(schema).toBe(published);
  });

  test.each([...PLUGINS.map((plugin) => `plugins/${plugin}`), "apps/cli/templates/plugin"])(
    "%s/plugboard.plugin.json names it by URL, which resolves once the package is installed",
    (folder) => {
      const manifest = JSON.parse(readFileSync(join(ROOT, folder, "plugboard.plugin.json"), "utf8"));
      expect(manifest.$schema).toBe(published);
    },
  );
});

describe("the READMEs' approval prompt sample", () => {
  test("is the prompt the demo shows for `run rm -rf build` (with the shipped config, at a terminal)", async () => {
    await using folder = await tempFolder({ "build/.keep": "" });
    const terminal = spawnInTerminal(["run", "run rm -rf build"], { cwd: folder.dir });
    await terminal.waitFor("[n] no › ");
    terminal.type("n");
    await terminal.waitFor("Enter to skip) › ");
    terminal.type("\r");
    expect(await terminal.exited()).toBe(0);
    const prompt = /\[y\] yes[^\n]*?\[n\] no › /.exec(terminal.screen())?.[0];
    expect(prompt).toBe("[y] yes  [a] always bash this session  [c] always commands like rm -rf build  [n] no › ");
    for (const readme of [ROOT_README, CLI_README]) expect(readme).toContain(`allow bash?\n  $ rm -rf build\n${prompt}no\n`);
  });
});

describe("the packages' READMEs' API lists", () => {
  const PACKAGES = [...readdirSync(join(ROOT, "packages")).map((name) => `packages/${name}`), ...PLUGINS.map((plugin) => `plugins/${plugin}`)].filter((folder) =>
    readdirSync(join(ROOT, folder)).includes("README.md"),
  );
  const KEYWORDS = new Set(["await", "const", "export", "for", "if", "import", "let", "new", "return", "test", "expect", "try", "using"]);

  /** The names a workspace package exports from its sources, following its `export * from "@plugboard/…"`. */
  function exportsOf(folder: string, seen = new Set<string>()): Set<string> {
    const names = new Set<string>();
    if (seen.has(folder)) return names;
    seen.add(folder);
    for (const file of readdirSync(join(ROOT, folder, "src"), { recursive: true, encoding: "utf8" })) {
      if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
      const source = readFileSync(join(ROOT, folder, "src", file), "utf8");
      for (const [, name = ""] of source.matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:abstract\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+(\w+)/g)) names.add(name);
      for (const [, list = ""] of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
        for (const part of list.split(",")) names.add(part.trim().replace(/^type\s+/, "").split(/\s+as\s+/).at(-1) ?? "");
      }
      for (const [, name = ""] of source.matchAll(/export\s+\*\s+from\s+"@plugboard\/([\w-]+)/g)) for (const inner of exportsOf(`packages/${name}`, seen)) names.add(inner);
    }
    return names;
  }

  test.each(PACKAGES)("%s/README.md names only what its package exports", (folder) => {
    const page = `${folder}/README.md`;
    const blocks = docBlocks(page, readFileSync(join(ROOT, page), "utf8")).filter((block) => TYPESCRIPT.has(block.lang));
    const missing: string[] = [];
    for (const line of blocks.flatMap((block) => block.code.split("\n"))) {
      // A signature list's line: `name(…): Type`, `name<T>(…): Type`, `interface Name {`, or a constant and its comment (a call in an example, `name(…);`, is none).
      const signature = /^([A-Za-z_$][\w$]*)\s*(?:<[^(]*>)?\s*\(.*\)\s*:\s*\S/.exec(line) ?? /^(?:interface|type)\s+([A-Za-z_$][\w$]*)\b/.exec(line) ?? /^([A-Z][A-Z0-9_]+)\s+\/\//.exec(line);
      const name = signature?.[1];
      if (name === undefined || KEYWORDS.has(name)) continue;
      // `// @plugboard/core/internal`: the line says which package holds it.
      const owner = /\/\/\s*@plugboard\/([\w-]+)/.exec(line)?.[1];
      if (!exportsOf(owner === undefined ? folder : `packages/${owner}`).has(name)) missing.push(`${name}: ${line.trim().slice(0, 80)}`);
    }
    expect(missing).toEqual([]);
  });
});
