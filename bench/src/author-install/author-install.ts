/**
 * Suite 13 — a plugin author's install: the packages of ours a fresh `plugboard plugin new`
 * scaffold needs are published to a local registry (Verdaccio, as the release test runs it),
 * the scaffold is installed from it with `bun install` (a fresh HOME and package cache), and
 * its `node_modules` is measured: the packages its dependencies, devDependencies and
 * peerDependencies bring besides the author's own build tools (typescript and bun-types, and
 * what only they bring, wherever they are named), and the apparent size of their files. Sizes and counts, not times: they do
 * not depend on the machine.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { startRegistry, TOKEN } from "@plugboard/release/verdaccio";
import { publishOrder, workspacePackages } from "@plugboard/release/workspace-packages";
import type { FigureLog } from "../harness/figures.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
import { runProcess } from "../harness/process.ts";
import { withTempDir } from "../harness/temp.ts";
import { apparentSize, installedClosure } from "./installed-packages.ts";

export const AUTHOR_INSTALL_GROUP = "A plugin author's install";

/** The author's own build tools the scaffold lists: not counted. */
export const BUILD_TOOLS = ["typescript", "bun-types"];
/** The goals: at most this many packages and bytes besides the build tools. */
export const GOAL = { packages: 4, megabytes: 15 } as const;

const MB = 1_000_000;

/** Publishes what a scaffold needs, installs a scaffold from the registry and records what it brought. */
export async function authorInstall(mode: RunMode, log: FigureLog): Promise<void> {
  await withTempDir("author-install", async (dir) => {
    mode.progress("author's install: starting a local registry (Verdaccio)");
    await using registry = await startRegistry(join(dir, "registry"));
    const plugin = join(dir, "plugboard-plugin-bench-tool");
    await runProcess([process.execPath, "--no-env-file", "--config=/dev/null", join(REPO_ROOT, "apps/cli/src/main.ts"), "plugin", "new", "bench-tool", "--dir", plugin], { cwd: dir });
    const scaffold = JSON.parse(await readFile(join(plugin, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    const listed = [...new Set(["dependencies", "devDependencies", "peerDependencies"].flatMap((field) => Object.keys(scaffold[field] ?? {})))];

    const home = join(dir, "home");
    await mkdir(home);
    await writeFile(join(home, ".npmrc"), registry.npmrc);
    const env = { PATH: process.env.PATH, HOME: home, BUN_INSTALL_CACHE_DIR: join(dir, "bun-cache"), NO_COLOR: "1" };
    const published = await publishNeeded(listed, registry.url, env);
    mode.progress(`author's install: published ${published.join(", ")}; bun install of the scaffold`);
    await runProcess([process.execPath, "install"], { cwd: plugin, env });

    // A package may name a build tool too (a peerDependency on typescript): it is the author's all the same.
    const counted = await installedClosure(plugin, listed, BUILD_TOOLS);
    const bytes = counted.reduce((sum, pkg) => sum + pkg.bytes, 0);
    const names = counted.map((pkg) => `${pkg.name} ${pkg.version}`).join(", ");
    const add = (name: string, value: number, unit: string, note?: string) => log.add({ group: AUTHOR_INSTALL_GROUP, name, value, unit, ...(note ? { note } : {}) });
    add("packages installed, besides typescript and bun-types", counted.length, "packages", names);
    add("their files", bytes / MB, "MB", "apparent size of the files (1 MB = 1,000,000 bytes)");
    add("the whole node_modules, typescript and bun-types included", (await apparentSize(join(plugin, "node_modules"))) / MB, "MB");
    log.ratio(AUTHOR_INSTALL_GROUP, `packages / ${GOAL.packages}`, counted.length, GOAL.packages, { op: "<=", limit: 1 });
    log.ratio(AUTHOR_INSTALL_GROUP, `their files / ${GOAL.megabytes} MB`, bytes / MB, GOAL.megabytes, { op: "<=", limit: 1 });
  });
}

/** Publishes the workspace packages among `names` and every one of ours they need, each after its own; their names. */
async function publishNeeded(names: readonly string[], registry: string, env: Record<string, string | undefined>): Promise<string[]> {
  const all = await workspacePackages(REPO_ROOT);
  const byName = new Map(all.map((pkg) => [pkg.name, pkg]));
  const needed = new Set<string>();
  const visit = (name: string): void => {
    const pkg = byName.get(name);
    if (pkg === undefined || needed.has(name)) return;
    needed.add(name);
    for (const next of pkg.needs) visit(next);
  };
  for (const name of names) visit(name);
  const order = publishOrder(all.filter((pkg) => needed.has(pkg.name)));
  for (const pkg of order) {
    await runProcess([process.execPath, "publish", "--registry", registry, "--access", "public"], { cwd: pkg.folder, env: { ...env, NPM_CONFIG_TOKEN: TOKEN } });
  }
  return order.map((pkg) => pkg.name);
}
