/**
 * The repository's workspace packages as the release sees them: which are public, and the
 * order that publishes each package after every one of ours it depends on.
 */
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Glob } from "bun";

/** One workspace package: its folder and the package.json fields the release reads. */
export interface WorkspacePackage {
  readonly name: string;
  readonly version: string;
  readonly folder: string;
  readonly private: boolean;
  /** Names of the packages it needs installed to run: dependencies, peer and optional ones. */
  readonly needs: readonly string[];
}

interface PackageJson {
  name?: string;
  version?: string;
  private?: boolean;
  workspaces?: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
}

/** Every package matched by the root package.json's `workspaces`, sorted by name. */
export async function workspacePackages(root: string): Promise<WorkspacePackage[]> {
  const rootJson = await readJson(join(root, "package.json"));
  const found: WorkspacePackage[] = [];
  for (const pattern of rootJson.workspaces ?? []) {
    for await (const path of new Glob(`${pattern}/package.json`).scan({ cwd: root, onlyFiles: true })) {
      const json = await readJson(join(root, path));
      if (json.name === undefined || json.version === undefined) throw new Error(`${path} has no name or version`);
      const needs = [json.dependencies, json.peerDependencies, json.optionalDependencies].flatMap((deps) => Object.keys(deps ?? {}));
      found.push({ name: json.name, version: json.version, folder: join(root, dirname(path)), private: json.private === true, needs });
    }
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The public packages, each after the workspace packages it needs. Throws when a public
 * package needs a private one (it could not be installed from a registry) or on a cycle.
 */
export function publishOrder(packages: readonly WorkspacePackage[]): WorkspacePackage[] {
  const byName = new Map(packages.map((pkg) => [pkg.name, pkg]));
  const ordered: WorkspacePackage[] = [];
  const visiting = new Set<string>();
  const visit = (pkg: WorkspacePackage, chain: readonly string[]): void => {
    if (ordered.includes(pkg)) return;
    if (visiting.has(pkg.name)) throw new Error(`Dependency cycle: ${[...chain, pkg.name].join(" → ")}`);
    visiting.add(pkg.name);
    for (const name of pkg.needs) {
      const needed = byName.get(name);
      if (needed === undefined) continue;
      if (needed.private) throw new Error(`${pkg.name} needs ${name}, which is private and so never published`);
      visit(needed, [...chain, pkg.name]);
    }
    visiting.delete(pkg.name);
    ordered.push(pkg);
  };
  for (const pkg of packages) if (!pkg.private) visit(pkg, []);
  return ordered;
}

async function readJson(path: string): Promise<PackageJson> {
  return JSON.parse(await readFile(path, "utf8")) as PackageJson;
}
