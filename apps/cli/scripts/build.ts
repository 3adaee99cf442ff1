/**
 * Builds the bundled CLI, `dist/bin.js`, from `src/bin.ts` with `bun build` (target bun, one
 * chunk per command so each loads only what it needs), with the web chat's page built into
 * `dist/chat-page/` (`plugboard web` serves it: the installed CLI has neither the page's
 * sources nor their browser libraries), and records the sources it was built from in
 * `dist/sources.json` so that `scripts/start.ts` can tell when it is stale.
 *
 * `bun run build` (in apps/cli) builds it; `scripts/start.ts` when it is stale; `prepack`
 * before the package is packed for publishing; `bun run release --pack` into the tarball it makes.
 */
import type { BunPlugin } from "bun";
import { chmod, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { PAGE_DIR, writeChatPage } from "@plugboard/web/page";
import { versionLine } from "../src/version.ts";

/** The CLI's package folder. */
export const CLI_DIR = resolve(import.meta.dir, "..");
/** Where the bundle goes. */
export const DIST_DIR = join(CLI_DIR, "dist");
/** The bundle's entry. */
export const BUNDLE_ENTRY = join(DIST_DIR, "bin.js");

/**
 * Packages left out of the bundle and loaded from their own folders at run time (so installed
 * with the CLI as its dependencies): the plugin authors' kit starts its harness from a file
 * beside its sources, which a bundle would not carry.
 * (The sandbox and the bootstrap find their confinement entry and plugin host through their
 * package names, so they are bundled.)
 */
const EXTERNAL = ["@plugboard/testing"];

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

/**
 * Builds the bundle into `outDir` (default `dist/`): into a fresh folder beside it first,
 * which then replaces the old one, so a CLI starting meanwhile never sees half a bundle.
 */
export async function buildCli(outDir: string = DIST_DIR): Promise<BundleSources> {
  const builtAt = Date.now();
  const staging = await mkdtemp(join(dirname(outDir), ".dist-"));
  try {
    const result = await Bun.build({
      // Core is an entry of its own (dist/core.js) so that bin.ts can hand it to the plugins
      // it loads in its process (a confined plugin's host runs @plugboard/hosts' own program).
      entrypoints: [join(CLI_DIR, "scripts/bin.ts"), join(CLI_DIR, "scripts/core.ts")],
      outdir: staging,
      target: "bun",
      format: "esm",
      splitting: true,
      // A require() of a bundled module is a chunk of its own, loaded when the call runs
      // (TypeBox's compiler, for the first registry that compiles a schema).
      splitRequire: true,
      external: EXTERNAL,
      plugins: [HIGHLIGHT_LANGUAGES],
      naming: { entry: "[name].[ext]", chunk: "chunk-[hash].[ext]" },
      // `--version` prints this without loading anything (bin.ts).
      define: { PLUGBOARD_VERSION_LINE: JSON.stringify(versionLine()) },
      metafile: true,
    });
    if (!result.success || !result.metafile) {
      throw new AggregateError(result.logs, `bun build of the CLI failed:\n${result.logs.join("\n")}`);
    }
    // Metafile inputs are relative to the folder bun ran in.
    const sources = Object.keys(result.metafile.inputs)
      .filter((input) => !input.includes("node_modules/"))
      .map((input) => relative(CLI_DIR, resolve(input)));
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
