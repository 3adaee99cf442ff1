/**
 * `bun run release --pack [--out DIR]`: the CLI as one self-contained npm tarball that
 * `npm install -g FILE.tgz` installs with nothing from our registry scope. It holds the CLI's
 * package as `bun pm pack` makes it (the default config, the `plugboard` launcher) with its
 * bundle built into it (`dist/`, with the page `plugboard web` serves) and, as `bundleDependencies`, every package the
 * bundle loads at run time from its folder — ours (the plugins, the sandbox's and the hosts'
 * programs, the shell grammar's runtime) packed by `bun pm pack` too, the others copied from
 * the workspace's install — at the versions the lockfile installed. Bun itself is its one
 * dependency left to npm (`bun`, the npm package that ships the binary), which the launcher
 * runs.
 */
import { existsSync, realpathSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { workspacePackages } from "./workspace-packages.ts";

/** The Bun the tarball depends on: the version the repository builds and tests with (the root's `packageManager`). */
export async function bunVersion(root: string): Promise<string> {
  const { packageManager } = (await Bun.file(join(root, "package.json")).json()) as { packageManager: string };
  return packageManager.replace(/^bun@/, "");
}

/** What `packCli` made. */
export interface PackedCli {
  /** The tarball's path. */
  readonly file: string;
  readonly bytes: number;
  /** The version of `bun`, its one dependency. */
  readonly bun: string;
  /** The packages it carries in its node_modules, `name@version`, sorted. */
  readonly bundled: readonly string[];
}

interface PackageJson {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  bundleDependencies?: string[];
  scripts?: Record<string, string>;
}

/** One package placed in the tarball: where it came from and where it sits in it. */
interface Placed {
  readonly real: string;
  readonly staged: string;
  readonly json: PackageJson;
}

/** Packs the CLI of the repository at `root` into `outDir`; returns the tarball. */
export async function packCli(root: string, outDir: string): Promise<PackedCli> {
  const work = await mkdtemp(join(tmpdir(), "plugboard-pack-"));
  try {
    const top = join(work, "package");
    const cliFolder = join(root, "apps/cli");
    await unpackWorkspacePackage(cliFolder, top, work);
    // The bundle built into the tarball itself: the checkout's dist/ (which the CLI's tests run) is left as it is.
    await rm(join(top, "dist"), { recursive: true, force: true });
    const built = Bun.spawnSync(["bun", "scripts/build.ts", join(top, "dist")], { cwd: cliFolder, stdio: ["ignore", "pipe", "pipe"] });
    if (built.exitCode !== 0) throw new Error(`building the CLI's bundle failed:\n${built.stderr.toString()}`);
    const placed = await placeDependencies(root, cliFolder, top, work);
    const json = await readJson(join(top, "package.json"));
    const direct = Object.keys(json.dependencies ?? {}).sort();
    // The bundled tree is complete: npm installs it as it is and fetches only Bun.
    const bun = await bunVersion(root);
    json.dependencies = { ...json.dependencies, bun };
    json.bundleDependencies = direct;
    // The bundle is built: nothing to run when npm packs it.
    delete json.scripts;
    await writeFile(join(top, "package.json"), `${JSON.stringify(json, null, 2)}\n`);
    await mkdir(outDir, { recursive: true });
    const packed = Bun.spawnSync(["npm", "pack", "--ignore-scripts", "--json", "--pack-destination", outDir], {
      cwd: top,
      env: { ...process.env, npm_config_loglevel: "error" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (packed.exitCode !== 0) throw new Error(`npm pack failed:\n${packed.stderr.toString()}`);
    const [report] = JSON.parse(packed.stdout.toString()) as { filename: string }[];
    if (report === undefined) throw new Error("npm pack reported no tarball");
    const file = join(outDir, report.filename);
    const bundled = placed.map((entry) => `${entry.json.name}@${entry.json.version}`).sort();
    return { file, bytes: (await stat(file)).size, bun, bundled };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * A workspace package as `bun pm pack` publishes it (its `files`, real versions for
 * `workspace:`), unpacked at `into`; without its pack scripts (the CLI's `prepack` would
 * rebuild the checkout's dist/ under the tests that run it).
 */
async function unpackWorkspacePackage(folder: string, into: string, work: string): Promise<void> {
  const tarballs = await mkdtemp(join(work, "tarball-"));
  const packed = Bun.spawnSync(["bun", "pm", "pack", "--quiet", "--ignore-scripts", "--destination", tarballs], { cwd: folder, stdio: ["ignore", "pipe", "pipe"] });
  if (packed.exitCode !== 0) throw new Error(`bun pm pack in ${folder} failed:\n${packed.stdout.toString()}${packed.stderr.toString()}`);
  const tarball = packed.stdout.toString().trim().split("\n").at(-1) ?? "";
  await mkdir(into, { recursive: true });
  const unpacked = Bun.spawnSync(["tar", "-xzf", join(tarballs, tarball.split("/").at(-1) ?? tarball), "-C", into, "--strip-components=1"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (unpacked.exitCode !== 0) throw new Error(`unpacking ${tarball} failed: ${unpacked.stderr.toString()}`);
  await rm(tarballs, { recursive: true, force: true });
}

/**
 * Lays out, under `top/node_modules`, every package the CLI needs at run time (dependencies,
 * optional and peer ones that are installed), each at the top when its name is free there,
 * else beside the package that needs it; then checks that every package in the tarball
 * finds, by Node's resolution, the version it found in the workspace.
 */
async function placeDependencies(root: string, cliFolder: string, top: string, work: string): Promise<Placed[]> {
  const workspaceFolders = new Set((await workspacePackages(root)).map((pkg) => realpathSync(pkg.folder)));
  const byStaged = new Map<string, Placed>();
  const placed: Placed[] = [];
  // Each need as the workspace resolved it: the staged tree is checked against these.
  const resolved: { readonly from: Placed; readonly name: string; readonly real: string }[] = [];
  const queue: Placed[] = [{ real: cliFolder, staged: top, json: await readJson(join(cliFolder, "package.json")) }];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const [name, optional] of needs(next.json)) {
      const real = findInstalled(name, next.real);
      if (real === undefined) {
        if (optional) continue;
        throw new Error(`${next.json.name} needs ${name}, which is not installed: run bun install`);
      }
      resolved.push({ from: next, name, real });
      const staged = placeFor(name, real, next.staged, top, byStaged);
      if (staged === undefined) continue;
      if (workspaceFolders.has(real)) await unpackWorkspacePackage(real, staged, work);
      else await cp(real, staged, { recursive: true, dereference: true, filter: (path) => !relative(real, path).startsWith("node_modules") });
      const entry: Placed = { real, staged, json: await readJson(join(staged, "package.json")) };
      byStaged.set(staged, entry);
      placed.push(entry);
      queue.push(entry);
    }
  }
  for (const { from, name, real } of resolved) {
    const staged = findInstalled(name, from.staged);
    const wanted = (await readJson(join(real, "package.json"))).version;
    const found = staged === undefined ? undefined : (await readJson(join(staged, "package.json"))).version;
    if (found !== wanted) throw new Error(`in the tarball ${from.json.name} would find ${name}@${found ?? "nothing"}, not ${wanted}`);
  }
  return placed;
}

/**
 * Where `name` (installed at `real`) goes for the package staged at `from`: `undefined` when
 * the package it would find there is already that one; the top's node_modules when nothing
 * on the way up holds the name; else beside `from`.
 */
function placeFor(name: string, real: string, from: string, top: string, byStaged: ReadonlyMap<string, Placed>): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    const there = byStaged.get(candidate);
    if (there !== undefined) return there.real === real ? undefined : join(from, "node_modules", name);
    if (dir === top || !dir.startsWith(top)) return join(top, "node_modules", name);
  }
}

/** The names a package needs installed, each with whether it may be missing (optional and peer ones). */
function needs(json: PackageJson): [string, boolean][] {
  return [
    ...Object.keys(json.dependencies ?? {}).map((name): [string, boolean] => [name, false]),
    ...Object.keys(json.optionalDependencies ?? {}).map((name): [string, boolean] => [name, true]),
    ...Object.keys(json.peerDependencies ?? {}).map((name): [string, boolean] => [name, true]),
  ];
}

/** The real folder Node's resolution finds for package `name` from `folder`, or `undefined`. */
function findInstalled(name: string, folder: string): string | undefined {
  for (let dir = folder; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name, "package.json");
    if (existsSync(candidate)) return dirname(realpathSync(candidate));
    if (dirname(dir) === dir) return undefined;
  }
}


async function readJson(path: string): Promise<PackageJson> {
  return JSON.parse(await readFile(path, "utf8")) as PackageJson;
}
