/**
 * Builds the bundled CLI into `dist/` with `bun build` (target bun), in three parts:
 *
 * - `cli.js`: the CLI and every package of ours it runs, with the small libraries they use,
 *   as one minified CommonJS bundle compiled to JavaScriptCore's bytecode beside it
 *   (`cli.js.jsc`). A start reads the bytecode instead of parsing and compiling the code it
 *   runs, which roughly halves what loading the CLI costs; a module is still evaluated only
 *   when first imported. (Bun compiles ES modules to bytecode only into a single executable.)
 *   Every start reads the whole bundle, code and bytecode, so its size is paid by every
 *   command: minified (as the host programs are), `plugboard tools` starts about 6 ms sooner.
 *   Which sources a bundle holds is in `sources.json`, not in comments of its code.
 * - `vendor-GROUP.js` (with its bytecode): the large libraries only some commands load,
 *   one bundle per family (`VENDOR_GROUPS`), kept out of `cli.js`, all of which every start
 *   reads. Each module of theirs that `cli.js` imports is a stand-in there, which requires
 *   its family's bundle when first imported: a family is read when a command first needs it.
 * - `bin.js`, the entry: it prints `--version` without loading anything, else runs `cli.js`.
 * - `host-program.js` (with its bytecode) and `confine-program.js`: the programs a confined
 *   plugin's host starts with (the hosts package's `writeProgramBundles`), so that the
 *   installed CLI's hosts start from its own read-only files and build nothing at run time.
 *
 * With the web chat's page built into `dist/chat-page/` (`plugboard web` serves it: the
 * installed CLI has neither the page's sources nor their browser libraries), and the sources
 * it was built from recorded in `dist/sources.json`, so that `scripts/start.ts` can tell when
 * it is stale. The bytecode is the building Bun's own: another version of Bun ignores it and
 * reads the code (the same behaviour, slower), and `start.ts` rebuilds for it.
 *
 * `bun run build` (in apps/cli) builds it; `scripts/start.ts` when it is stale; `prepack`
 * before the package is packed for publishing; `bun run release --pack` into the tarball it makes.
 */
import type { BuildConfig, BuildMetafile, BunPlugin } from "bun";
import { realpathSync } from "node:fs";
import { chmod, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { writeProgramBundles } from "@plugboard/hosts/program";
import { PAGE_DIR, writeChatPage } from "@plugboard/web/page";
import { versionLine } from "../src/version.ts";

/** The CLI's package folder. */
export const CLI_DIR = resolve(import.meta.dir, "..");
/** Where the bundle goes. */
export const DIST_DIR = join(CLI_DIR, "dist");
/** The bundle's entry. */
export const BUNDLE_ENTRY = join(DIST_DIR, "bin.js");
/** The globals through which bin.js tells `cli.js` where it is: its modules' `import.meta.dir` and `import.meta.url`. */
export const BUNDLE_GLOBALS = { dir: "PLUGBOARD_BUNDLE_DIR", url: "PLUGBOARD_BUNDLE_URL" } as const;

/**
 * In a bundle every module's folder and URL are the bundle's, as an ES module bundle keeps
 * them (`import.meta`, read where it runs). A CommonJS bundle would write in those each module
 * was built from (its `__dirname` too): bin.js says where the bundle is, for `cli.js` and the
 * vendored families alike (a library may ask, as web-tree-sitter does for its require).
 */
const BUNDLE_PLACE = { "import.meta.dir": `globalThis.${BUNDLE_GLOBALS.dir}`, "import.meta.url": `globalThis.${BUNDLE_GLOBALS.url}` };

/**
 * Packages left out of the bundle and loaded from their own folders at run time (so installed
 * with the CLI as its dependencies): the plugin authors' kit starts its harness from a file
 * beside its sources, which a bundle would not carry.
 * (The sandbox and the bootstrap find their confinement entry and plugin host through their
 * package names, so they are bundled.)
 */
const EXTERNAL = ["@plugboard/testing"];

/**
 * Every bundle is minified: whitespace, syntax and names. `cli.js` shrinks from 1.09 MB to 0.56 MB
 * (its bytecode from 2.35 to 2.19 MB), and a start reads both whole. Nothing of ours reads a
 * function's source or a class's name. A bug of ours crashes with its stack (failure.ts): for
 * that, `cli.js` has a linked source map (`cli.js.map`), which Bun reads only to write a stack,
 * so that its frames name our sources and their lines instead of places in the minified bundle.
 */
const MINIFY = true;

/**
 * The families of large libraries bundled apart from `cli.js`, by the package names (and
 * their subpaths) each holds: the model's SDK (`run`, `web`), the MCP SDK with the schema
 * libraries it validates with (a config's MCP servers, `plugboard mcp`), the Markdown
 * renderer of `run`'s answers, the config editor's and change preview's libraries (a grant
 * or rule saved, a question about a write), the shell grammar's runtime (a bash line parsed
 * against the policy) and the HTTP server's (`web`, `mcp --http`). A family is one bundle, so
 * that a module its packages share (the MCP client's and server's core, zod) exists once.
 */
export const VENDOR_GROUPS: Readonly<Record<string, readonly string[]>> = {
  openai: ["openai"],
  mcp: ["@modelcontextprotocol/client", "@modelcontextprotocol/server", "@modelcontextprotocol/sdk", "ajv", "ajv-formats", "zod"],
  markdown: ["marked", "marked-terminal"],
  edit: ["jsonc-parser", "diff"],
  shell: ["web-tree-sitter"],
  http: ["hono"],
};

/** The family of the package `specifier` imports, if it is vendored. */
export function vendorGroup(specifier: string): string | undefined {
  return Object.entries(VENDOR_GROUPS).find(([, packages]) => packages.some((name) => specifier === name || specifier.startsWith(`${name}/`)))?.[0];
}

/**
 * marked-terminal highlights code through cli-highlight, which loads all of highlight.js:
 * the bundle gives it `src/highlight-languages.ts` instead, the core and a chosen set.
 */
export const HIGHLIGHT_LANGUAGES: BunPlugin = {
  name: "highlight.js: the core and chosen languages",
  setup(build) {
    build.onResolve({ filter: /^highlight\.js$/ }, (args) =>
      args.importer.includes("/cli-highlight/") ? { path: join(CLI_DIR, "src/highlight-languages.ts") } : undefined,
    );
  },
};

/** What `sources.json` holds. */
export interface BundleSources {
  /** When the build started (ms since the epoch): a source changed after it makes the bundle stale. */
  readonly builtAt: number;
  /** The Bun version that built it. */
  readonly bun: string;
  /** The files it was built from, outside node_modules, relative to the CLI's folder. */
  readonly sources: readonly string[];
}

/** How `buildCli` builds, for tests. */
export interface BuildOptions {
  /**
   * The modules of `cli.js` whose files match record that they were evaluated, each pushing
   * its path onto `globalThis.PLUGBOARD_EVALUATED` (an array a test's preload makes): which
   * modules a command's start runs, which a bundle does not otherwise tell.
   */
  readonly recordEvaluated?: RegExp;
}

/**
 * Builds the bundle into `outDir` (default `dist/`): into a fresh folder beside it first,
 * which then replaces the old one, so a CLI starting meanwhile never sees half a bundle.
 */
export async function buildCli(outDir: string = DIST_DIR, options: BuildOptions = {}): Promise<BundleSources> {
  const builtAt = Date.now();
  const staging = await mkdtemp(join(dirname(outDir), ".dist-"));
  try {
    const define = { PLUGBOARD_VERSION_LINE: JSON.stringify(versionLine()) };
    const vendored = await vendoredImports(define);
    const main = await build({
      entrypoints: [join(CLI_DIR, "scripts/cli.ts")],
      outdir: staging,
      format: "cjs",
      bytecode: true,
      minify: MINIFY,
      sourcemap: "linked",
      external: EXTERNAL,
      plugins: [standIns(vendored), ...(options.recordEvaluated === undefined ? [] : [recordingEvaluation(options.recordEvaluated)])],
      define: { ...define, ...BUNDLE_PLACE },
    });
    const vendor = await buildVendor(staging, vendored);
    const entry = await build({ entrypoints: [join(CLI_DIR, "scripts/bin.ts")], outdir: staging, format: "esm", define });
    // The programs of a confined host's start, shipped beside the CLI (shipped-programs.ts): its hosts build none at run time.
    const programs = ownSources(await writeProgramBundles(staging));
    const sources = [...new Set([main, vendor, entry, programs].flat())];
    // The web chat's page, for `plugboard web`: built now, and its sources are the bundle's too.
    await writeChatPage(join(staging, "chat-page"));
    for (const file of await readdir(PAGE_DIR, { recursive: true, withFileTypes: true })) {
      if (file.isFile()) sources.push(relative(CLI_DIR, join(file.parentPath, file.name)));
    }
    // A dependency update changes the lockfile, not the sources.
    sources.push(relative(CLI_DIR, join(CLI_DIR, "../../bun.lock")));
    const record: BundleSources = { builtAt, bun: Bun.version, sources };
    await writeFile(join(staging, "sources.json"), `${JSON.stringify(record, null, 2)}\n`);
    await readableByAll(staging);
    await rm(outDir, { recursive: true, force: true });
    await rename(staging, outDir);
    return record;
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

/** One `bun build` for the CLI (target bun, entries named as their sources); the sources it read, outside node_modules. */
async function build(config: Omit<BuildConfig, "target" | "naming" | "metafile">): Promise<string[]> {
  const inputs = await bundled({ ...config, naming: { entry: "[name].[ext]" } });
  // The vendored modules' stand-ins are named `NAMESPACE:NAME`.
  return ownSources(Object.keys(inputs).filter((input) => !input.startsWith(`${VENDORED}:`)));
}

/** Of the files a build read (absolute, or relative to the folder bun ran in), those outside node_modules, relative to the CLI's folder. */
function ownSources(inputs: readonly string[]): string[] {
  return inputs.filter((input) => !input.includes("node_modules/")).map((input) => relative(CLI_DIR, resolve(input)));
}

/** Runs `bun build` (target bun) with `config`; the metafile's inputs, by path relative to the folder bun ran in. Throws with bun's messages when it fails. */
async function bundled(config: Omit<BuildConfig, "target" | "metafile">): Promise<BuildMetafile["inputs"]> {
  const result = await Bun.build({ ...config, target: "bun", metafile: true });
  if (!result.success || !result.metafile) {
    throw new AggregateError(result.logs, `bun build of the CLI failed:\n${result.logs.join("\n")}`);
  }
  return result.metafile.inputs;
}

/**
 * The modules of vendored families that `cli.js`'s code imports, each name with the file the
 * bundler resolves it to there (a package's ES module build, by its `exports` or `module`):
 * found by bundling the CLI whole once, in memory. Throws when a name resolves to two files:
 * two copies of a library, whose classes would differ.
 */
async function vendoredImports(define: Record<string, string>): Promise<Map<string, string>> {
  const inputs = await bundled({ entrypoints: [join(CLI_DIR, "scripts/cli.ts")], format: "cjs", external: EXTERNAL, define });
  const vendored = new Map<string, string>();
  for (const [importer, { imports }] of Object.entries(inputs)) {
    // The families' own imports of each other are theirs to bundle.
    if (/node_modules\/(?:@[^/]+\/)?[^/]+\//.test(importer) && vendorGroup(packageOf(importer)) !== undefined) continue;
    for (const { original, path } of imports) {
      if (original === undefined || vendorGroup(original) === undefined) continue;
      const file = resolve(path);
      const known = vendored.get(original);
      if (known !== undefined && known !== file) throw new Error(`${original} resolves to ${known} and to ${file}: the CLI must use one`);
      vendored.set(original, file);
    }
  }
  return vendored;
}

/** The package a file in node_modules belongs to (`@scope/name` or `name`). */
function packageOf(file: string): string {
  return /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1] ?? "";
}

/**
 * Leaves the vendored families' modules out of `cli.js`: each is a stand-in there, a module
 * that takes its exports from its family's bundle, required when it is first imported.
 */
function standIns(vendored: ReadonlyMap<string, string>): BunPlugin {
  return {
    name: "the vendored families, required from their own bundles",
    setup(build) {
      build.onResolve({ filter: /^[@a-z]/ }, ({ path }) => (vendorGroup(path) === undefined ? undefined : { path, namespace: VENDORED }));
      build.onLoad({ filter: /.*/, namespace: VENDORED }, async ({ path }) => {
        const file = vendored.get(path);
        if (file === undefined) throw new Error(`${path} was not found by the first pass over the CLI`);
        const names = Object.keys(await import(file));
        const family = JSON.stringify(`/vendor-${vendorGroup(path)}.js`);
        const lines = [
          `const m = require(globalThis.${BUNDLE_GLOBALS.dir} + ${family}).modules[${JSON.stringify(path)}];`,
          ...names.filter((name) => name === "default").map(() => "export default m.default;"),
          ...names.filter((name) => name !== "default" && /^[A-Za-z_$][\w$]*$/.test(name)).map((name) => `export const ${name} = m.${name};`),
        ];
        return { contents: lines.join("\n"), loader: "js" };
      });
    },
  };
}

/** Makes each module whose file matches `filter` push its path onto `globalThis.PLUGBOARD_EVALUATED` when evaluated (`BuildOptions`). */
function recordingEvaluation(filter: RegExp): BunPlugin {
  return {
    name: "record which modules are evaluated",
    setup(build) {
      build.onLoad({ filter }, async ({ path }) => ({
        contents: `globalThis.PLUGBOARD_EVALUATED?.push(${JSON.stringify(path)});\n${await Bun.file(path).text()}`,
        loader: path.endsWith(".ts") ? "ts" : "js",
      }));
    },
  };
}

/** The namespace of the vendored modules' stand-ins in `cli.js`. */
const VENDORED = "plugboard-vendored";

/** Builds each family that `cli.js` imports modules of into `vendor-GROUP.js`, whose `modules` are those modules by name. */
async function buildVendor(outDir: string, vendored: ReadonlyMap<string, string>): Promise<string[]> {
  const sources = await mkdtemp(join(tmpdir(), "plugboard-vendor-"));
  try {
    const groups = new Map<string, string[]>();
    for (const specifier of [...vendored.keys()].sort()) {
      const group = vendorGroup(specifier) ?? "";
      groups.set(group, [...(groups.get(group) ?? []), specifier]);
    }
    const entrypoints: string[] = [];
    for (const [group, specifiers] of groups) {
      // Each module from the file it resolved to where cli.js's sources import it.
      const imports = specifiers.map((specifier, index) => `import * as m${index} from ${JSON.stringify(vendored.get(specifier))};`);
      const map = specifiers.map((specifier, index) => `  ${JSON.stringify(specifier)}: m${index},`);
      const file = join(sources, `vendor-${group}.ts`);
      await writeFile(file, `${imports.join("\n")}\nexport const modules = {\n${map.join("\n")}\n};\n`);
      entrypoints.push(file);
    }
    if (entrypoints.length === 0) return [];
    const read = await build({ entrypoints, outdir: outDir, format: "cjs", bytecode: true, minify: MINIFY, plugins: [HIGHLIGHT_LANGUAGES], define: BUNDLE_PLACE });
    // The entries written here are gone once built: not sources of the bundle.
    const written = [sources, realpathSync(sources)].map((folder) => `${folder}/`);
    return read.filter((source) => !written.some((folder) => resolve(CLI_DIR, source).startsWith(folder)));
  } finally {
    await rm(sources, { recursive: true, force: true });
  }
}

/**
 * Gives `folder` the modes of a normal build output (folders 0755, files 0644, the entry
 * `bin.js` 0755), whatever the umask: `mkdtemp` makes it 0700, which would keep every other
 * user of the checkout from running the bundle.
 */
async function readableByAll(folder: string): Promise<void> {
  await chmod(folder, 0o755);
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) await chmod(path, 0o755);
    else if (entry.isFile()) await chmod(path, path === join(folder, "bin.js") ? 0o755 : 0o644);
  }
}

// `bun scripts/build.ts [OUT_DIR]`: OUT_DIR for a bundle elsewhere than dist/ (the CLI tarball's, packages/release).
if (import.meta.main) {
  const outDir = process.argv[2] === undefined ? DIST_DIR : resolve(process.argv[2]);
  const { sources } = await buildCli(outDir);
  process.stderr.write(`built ${relative(process.cwd(), join(outDir, "bin.js"))} from ${sources.length} source files\n`);
}
