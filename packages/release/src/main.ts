/**
 * `bun run release --registry URL [--dry-run]`: publishes every public workspace package at
 * its package.json version to an npm-compatible registry, each after the packages of ours it
 * depends on, skipping versions the registry already has. `bun publish` packs each package,
 * turning `workspace:` ranges into the versions they point at. Versions and changelogs are
 * made beforehand with Changesets (`bunx changeset version`).
 *
 * `bun run release --pack [--out DIR]`: the CLI as one self-contained tarball (pack-cli.ts).
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { packCli } from "./pack-cli.ts";
import { publishedVersions } from "./registry.ts";
import { publishOrder, workspacePackages } from "./workspace-packages.ts";

const USAGE = `Usage: bun run release --registry URL [--dry-run]
       bun run release --pack [--out DIR]

Publishes every public package at its package.json version, dependencies first, skipping
versions the registry already has. The token comes from .npmrc or NPM_CONFIG_TOKEN.
  --registry URL  the npm-compatible registry, e.g. what "npm config get registry" prints
  --dry-run       say what would be published, publish nothing

--pack writes the CLI as one self-contained tarball (our packages inside it, Bun its one
dependency) that "npm install -g FILE.tgz" installs without any registry of ours.
  --out DIR       where the tarball goes (default: the current folder)`;

const ROOT = join(import.meta.dir, "../../..");

async function main(argv: readonly string[]): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      registry: { type: "string" },
      "dry-run": { type: "boolean" },
      pack: { type: "boolean" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (values.pack) {
    const packed = await packCli(ROOT, resolve(values.out ?? "."));
    console.log(`packed ${packed.file} (${(packed.bytes / 2 ** 20).toFixed(1)} MiB, ${packed.bundled.length} packages inside, bun@${packed.bun} its dependency)`);
    console.log(`install it with: npm install -g ${packed.file}`);
    return 0;
  }
  const registry = values.registry;
  if (registry === undefined || !URL.canParse(registry)) {
    console.error(`${registry === undefined ? "--registry URL is required" : `--registry must be a URL, got '${registry}'`}\n\n${USAGE}`);
    return 2;
  }
  const token = process.env.NPM_CONFIG_TOKEN;
  for (const pkg of publishOrder(await workspacePackages(ROOT))) {
    const label = `${pkg.name}@${pkg.version}`;
    if ((await publishedVersions(registry, pkg.name, token)).includes(pkg.version)) {
      console.log(`skipped   ${label} (already on the registry)`);
      continue;
    }
    if (values["dry-run"]) {
      console.log(`would publish ${label}`);
      continue;
    }
    const published = Bun.spawnSync(["bun", "publish", "--registry", registry, "--access", "public"], {
      cwd: pkg.folder,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (published.exitCode !== 0) {
      console.error(`failed to publish ${label}:\n${published.stdout.toString()}${published.stderr.toString()}`);
      return 1;
    }
    console.log(`published ${label}`);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
