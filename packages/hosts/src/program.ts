/**
 * Which files a confined host's start runs: the confining step (the sandbox's
 * `CONFINE_PROGRAM`) and the host (host-program.ts), each bundled into one file (Bun.build):
 * the host's CommonJS with its bytecode (and TypeBox's compiler in a file of its own beside
 * it, see `programBundles`), the step's an ES module without (`bytecodeOf`), kept in the
 * listing cache's folder (`…/plugboard/hosts/program/`) and built again when any of its
 * sources changed (or another Bun runs). A bundled host parses one precompiled file instead
 * of core's, TypeBox's and the loader's hundreds of modules: it starts in a fraction of the
 * time and holds less memory. Without
 * a cache folder, or when a build fails, both run from their sources: slower, the same
 * behaviour. An app that ships both programs beside its code (the bundled CLI, built with
 * `writeProgramBundles`; shipped-programs.ts) starts its hosts from those and keeps none here.
 *
 * Each installation of Plugboard (this package's folder: a checkout, a global install) keeps
 * its bundles in a folder of its own under `program/`, so that two of them on one machine,
 * which share the user's cache, never build over or delete the bundles the other's hosts
 * are starting from. A folder whose sources are all gone (an installation removed) is
 * deleted when another builds.
 *
 * The folder is protected like the listing cache (protected-paths.ts): a confined plugin
 * that could write a program would run its code in every later host, with their grants.
 */
import type { BunPlugin } from "bun";
import { mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { Logger } from "@plugboard/core";
import { CONFINE_PROGRAM } from "@plugboard/sandbox/launcher";
import { stamp } from "./listing-cache.ts";
import { type HostPrograms, SHIPPED_PROGRAMS } from "./shipped-programs.ts";

export type { HostPrograms } from "./shipped-programs.ts";

/** This package's folder. */
export const HOSTS_FOLDER = dirname(Bun.resolveSync("@plugboard/hosts/package.json", import.meta.dir));
/** The host's program from its sources. */
export const HOST_SOURCE = join(HOSTS_FOLDER, "src/host-program.ts");
/** Core's module of TypeBox's compiler, which core's registry requires on a schema's first compile. */
const CORE_COMPILER = realpathSync(join(dirname(Bun.resolveSync("@plugboard/core/package.json", HOSTS_FOLDER)), "src/compiler.ts"));

/** What the program folder's record says of one bundle in it. */
interface ProgramRecord {
  readonly bun: string;
  /** The bundle's file name in the folder (its bytecode beside it, `FILE.jsc`). */
  readonly file: string;
  /** The files (each with its bytecode) the bundle requires from beside it: the host's, TypeBox's compiler. */
  readonly parts?: readonly string[];
  /** Each source of the bundle (absolute) and its stamp when it was built. */
  readonly sources: Readonly<Record<string, string>>;
}

/** This installation's name in the program folder: its host's and confining step's sources' places. */
const INSTALLATION = new Bun.CryptoHasher("sha256").update(`${HOST_SOURCE}\0${CONFINE_PROGRAM}`).digest("hex").slice(0, 16);

/** The program folder inside the listing cache's folder: this installation's, or (`"all"`) every one's. */
export function programFolder(cacheFolder: string, which: "this" | "all" = "this"): string {
  return which === "all" ? join(cacheFolder, "program") : join(cacheFolder, "program", INSTALLATION);
}

/**
 * The programs hosts start with: the bundles in `cacheFolder`'s program folder, built now
 * when missing or stale; the sources when there is no cache folder or a bundle cannot be made.
 */
export async function hostPrograms(cacheFolder: string | undefined, logger: Logger): Promise<HostPrograms> {
  if (cacheFolder === undefined) return { host: HOST_SOURCE, confine: undefined };
  const folder = programFolder(cacheFolder);
  const [host, confine] = await Promise.all([bundled(HOST_SOURCE, folder, logger), bundled(CONFINE_PROGRAM, folder, logger)]);
  return { host: host ?? HOST_SOURCE, confine };
}

/** `entry`'s bundle in `folder`, kept or built now; undefined when it cannot be made. */
async function bundled(entry: string, folder: string, logger: Logger): Promise<string | undefined> {
  const name = basename(entry, ".ts");
  const kept = keptBundle(folder, name, entry);
  if (kept !== undefined) return kept;
  try {
    return await build(entry, folder, name);
  } catch (error) {
    logger.debug(`${name} runs from its sources: it could not be bundled in ${folder}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** The kept bundle of `name` when every source is as it was built from, else undefined. */
function keptBundle(folder: string, name: string, entry: string): string | undefined {
  let record: ProgramRecord;
  try {
    record = JSON.parse(readFileSync(join(folder, `${name}.json`), "utf8")) as ProgramRecord;
  } catch {
    return undefined;
  }
  if (record.bun !== Bun.version || typeof record.file !== "string" || typeof record.sources !== "object") return undefined;
  // A bundle another checkout of Plugboard built (the cache folder is the user's) is not of these sources.
  if (!(resolve(entry) in record.sources)) return undefined;
  for (const [source, stamped] of Object.entries(record.sources)) {
    if (stamp(source) !== stamped) return undefined;
  }
  const files = [record.file, ...(Array.isArray(record.parts) ? record.parts : [])];
  const bytecode = bytecodeOf(entry);
  const missing = files.some((kept) => typeof kept !== "string" || stamp(join(folder, kept)) === "missing" || (bytecode && stamp(join(folder, `${kept}.jsc`)) === "missing"));
  return missing ? undefined : join(folder, record.file);
}

/**
 * Whether `entry` is bundled as CommonJS with its bytecode (the host's program and its parts,
 * which a start would otherwise parse whole), or as one ES module without: the confining
 * step's, which awaits at its top level the program it runs in place (confine-program.ts), and
 * is small enough that its bytecode started it no sooner (measured: the same).
 */
function bytecodeOf(entry: string): boolean {
  return entry !== CONFINE_PROGRAM;
}

/** A program bundled: its code, its bytecode (none for an ES module), and the sources it was built from (absolute). */
interface ProgramBundle {
  readonly text: string;
  readonly bytecode: Uint8Array | undefined;
  readonly sources: readonly string[];
}

/** Bundles `entry` into one file (in memory): CommonJS with its bytecode, or an ES module (`bytecodeOf`). */
async function bundleProgram(entry: string, plugins: BunPlugin[] = []): Promise<ProgramBundle> {
  const bytecode = bytecodeOf(entry);
  const result = await Bun.build({ entrypoints: [entry], target: "bun", format: bytecode ? "cjs" : "esm", bytecode, minify: true, metafile: true, plugins });
  const code = result.outputs.find((output) => output.kind === "entry-point");
  const compiled = result.outputs.find((output) => output.kind === "bytecode");
  if (!result.success || code === undefined || (bytecode && compiled === undefined) || result.metafile === undefined) {
    throw new Error(result.logs.map((log) => log.message).join("; ") || "Bun.build gave no output");
  }
  return {
    text: await code.text(),
    bytecode: compiled === undefined ? undefined : new Uint8Array(await compiled.arrayBuffer()),
    sources: Object.keys(result.metafile.inputs).map((input) => resolve(input)),
  };
}

/** A program's bundle, and the bundles it requires from beside it, by file name. */
interface ProgramBundles {
  readonly main: ProgramBundle;
  readonly parts: ReadonlyMap<string, ProgramBundle>;
}

/**
 * `entry` bundled. The host's bundle leaves TypeBox's compiler apart, in a bundle of its own
 * named by `compilerName` (given its code), which core's registry requires from beside the
 * host's file on a schema's first compile: a host checks no call's arguments (the app does),
 * and a start that does not read the compiler's code is milliseconds shorter. A plugin that
 * compiles a schema itself (a ToolRegistry of its own) loads it then.
 */
async function programBundles(entry: string, compilerName: (text: string) => string): Promise<ProgramBundles> {
  if (entry !== HOST_SOURCE) return { main: await bundleProgram(entry), parts: new Map() };
  const compiler = await bundleProgram(CORE_COMPILER);
  const name = compilerName(compiler.text);
  return { main: await bundleProgram(entry, [compilerApart(name)]), parts: new Map([[name, compiler]]) };
}

/** Core's `require("./compiler.ts")` left as `require("./NAME")`, which Bun resolves beside the bundle's own file at run time. */
function compilerApart(name: string): BunPlugin {
  return {
    name: "TypeBox's compiler, apart from the host's bundle",
    setup(build) {
      build.onResolve({ filter: /^\.\/compiler\.ts$/ }, ({ path, importer }) =>
        resolve(dirname(importer), path) === CORE_COMPILER ? { path: `./${name}`, external: true } : undefined,
      );
    },
  };
}

/** The first 16 hex digits of `text`'s SHA-256: a bundle's name in the program folder. */
function hashOf(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 16);
}

/**
 * Writes the host's and the confining step's programs (and the compiler the host's requires)
 * into `folder`, each with its bytecode when it has one, as `shippedPrograms` finds them (a
 * build of the app ships them beside its code); returns the sources they were built from (absolute).
 */
export async function writeProgramBundles(folder: string): Promise<string[]> {
  const sources = new Set<string>();
  for (const [entry, name] of [
    [HOST_SOURCE, SHIPPED_PROGRAMS.host],
    [CONFINE_PROGRAM, SHIPPED_PROGRAMS.confine],
  ] as const) {
    const { main, parts } = await programBundles(entry, () => SHIPPED_PROGRAMS.compiler);
    for (const [file, bundle] of [...parts, [name, main] as const]) {
      if (bundle.bytecode !== undefined) await Bun.write(join(folder, `${file}.jsc`), bundle.bytecode);
      await Bun.write(join(folder, file), bundle.text);
      for (const source of bundle.sources) sources.add(source);
    }
  }
  return [...sources];
}

/** Bundles `entry` into `folder` (with its bytecode when it has one) and the record of its sources; returns the bundle's path. */
async function build(entry: string, folder: string, name: string): Promise<string> {
  const previous = recordedFiles(folder, name);
  const { main, parts } = await programBundles(entry, (text) => `${name}-compiler-${hashOf(text)}.js`);
  const file = `${name}-${hashOf(main.text)}.js`;
  // Stamped as they are now: a source changed while bundling makes the next start build again.
  const inputs = new Set([main, ...parts.values()].flatMap((bundle) => bundle.sources));
  const sources = Object.fromEntries([...inputs].map((input) => [input, stamp(input)]));
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  // Bun finds the bytecode beside the file, as FILE.jsc. The parts first: a bundle is never there without what it requires.
  for (const [written, bundle] of [...parts, [file, main] as const]) {
    if (bundle.bytecode !== undefined) writeWhole(join(folder, `${written}.jsc`), bundle.bytecode);
    writeWhole(join(folder, written), bundle.text);
  }
  writeWhole(join(folder, `${name}.json`), JSON.stringify({ bun: Bun.version, file, parts: [...parts.keys()], sources } satisfies ProgramRecord));
  // Earlier builds of it are of no use any more, but the one just before: a host of this
  // installation may be starting from it at this moment.
  const keep = new Set([file, ...parts.keys(), ...previous].flatMap((kept) => [kept, `${kept}.jsc`]));
  for (const old of readdirSync(folder)) {
    if (old.startsWith(`${name}-`) && !keep.has(old)) rmSync(join(folder, old), { force: true });
  }
  removeGoneInstallations(dirname(folder));
  return join(folder, file);
}

/** Deletes the program folders of installations whose every source is gone. */
function removeGoneInstallations(all: string): void {
  for (const installation of readdirSync(all)) {
    const folder = join(all, installation);
    if (installation === INSTALLATION || !statSync(folder, { throwIfNoEntry: false })?.isDirectory()) continue;
    const records = readdirSync(folder).filter((entry) => entry.endsWith(".json"));
    const sources = records.flatMap((entry) => {
      try {
        return Object.keys((JSON.parse(readFileSync(join(folder, entry), "utf8")) as ProgramRecord).sources);
      } catch {
        return [];
      }
    });
    // No record yet: another installation is building its first bundle there.
    if (sources.length > 0 && sources.every((source) => stamp(source) === "missing")) rmSync(folder, { recursive: true, force: true });
  }
}

/** The files `name`'s record names (its bundle and the parts it requires), if there is one. */
function recordedFiles(folder: string, name: string): string[] {
  try {
    const { file, parts } = JSON.parse(readFileSync(join(folder, `${name}.json`), "utf8")) as Partial<ProgramRecord>;
    return [file, ...(Array.isArray(parts) ? parts : [])].filter((kept): kept is string => typeof kept === "string");
  } catch {
    return [];
  }
}

/** Writes `data` to `path` whole or not at all. */
function writeWhole(path: string, data: string | Uint8Array): void {
  const staging = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(staging, data, { mode: 0o600 });
    renameSync(staging, path);
  } catch (error) {
    rmSync(staging, { force: true });
    throw error;
  }
}
