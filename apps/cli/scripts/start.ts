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
  } catch (error) {
    const code = codeOf(error);
    return code === "ENOENT" || code === undefined ? "it is not built yet" : `its sources.json cannot be read (${code})`;
  }
  if (record.bun !== Bun.version) return `it was built by Bun ${record.bun}`;
  for (const source of record.sources) {
    const modified = statSync(resolve(CLI_DIR, source), { throwIfNoEntry: false })?.mtimeMs;
    if (modified === undefined || modified >= record.builtAt) return `${source} changed`;
  }
  return undefined;
}

/** Said, instead of a stack, when the bundle must be rebuilt in a folder this user cannot write. */
export function cannotRebuild(reason: string, code: string, cliDir: string = CLI_DIR): string {
  return [
    `plugboard: the CLI bundle in ${cliDir}/dist must be rebuilt (${reason}), but ${cliDir} cannot be written (${code}).`,
    `Rebuild it as a user who can write there (bun run --cwd ${cliDir} build), or run the CLI from its sources: bun ${cliDir}/src/main.ts`,
  ].join("\n");
}

/** Errors that mean the folder cannot be written by this user, not a bug of the build. */
const CANNOT_WRITE = new Set(["EACCES", "EPERM", "EROFS"]);

function codeOf(error: unknown): string | undefined {
  const code = error instanceof Error ? Reflect.get(error, "code") : undefined;
  return typeof code === "string" ? code : undefined;
}

if (import.meta.main) {
  const reason = staleReason();
  if (reason !== undefined) {
    process.stderr.write(`plugboard: building the CLI bundle (${reason})\n`);
    try {
      await (await import("./build.ts")).buildCli();
    } catch (error) {
      const code = codeOf(error);
      if (code === undefined || !CANNOT_WRITE.has(code)) throw error;
      process.stderr.write(`${cannotRebuild(reason, code)}\n`);
      process.exit(2);
    }
  }
  await import(`${CLI_DIR}/dist/bin.js`);
}
