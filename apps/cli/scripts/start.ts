/**
 * What `bun run plugboard` runs in the repository: the bundled CLI (`dist/bin.js`), rebuilt
 * first when it is missing or older than any of its sources (or was built by another Bun),
 * so a developer never runs a stale bundle and a fresh checkout needs no build step. It
 * imports the build only when it must build: a start costs one `stat` per source.
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import type { BundleSources } from "./build.ts";

const CLI_DIR = resolve(import.meta.dir, "..");

/** Why the bundle in `distDir` must be rebuilt, or undefined when it is up to date. */
export function staleReason(distDir: string = `${CLI_DIR}/dist`): string | undefined {
  let record: BundleSources;
  try {
    record = JSON.parse(readFileSync(`${distDir}/sources.json`, "utf8"));
  } catch {
    return "it is not built yet";
  }
  if (record.bun !== Bun.version) return `it was built by Bun ${record.bun}`;
  for (const source of record.sources) {
    const modified = statSync(resolve(CLI_DIR, source), { throwIfNoEntry: false })?.mtimeMs;
    if (modified === undefined || modified >= record.builtAt) return `${source} changed`;
  }
  return undefined;
}

if (import.meta.main) {
  const reason = staleReason();
  if (reason !== undefined) {
    process.stderr.write(`plugboard: building the CLI bundle (${reason})\n`);
    await (await import("./build.ts")).buildCli();
  }
  await import(`${CLI_DIR}/dist/bin.js`);
}
