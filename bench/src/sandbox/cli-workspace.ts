/**
 * The real CLI, as a person runs it, for the suite's whole-CLI rows: the bundle
 * (`apps/cli/dist/bin.js`, built first when stale, as `bun run plugboard` does) started as
 * `bun --no-env-file --config=/dev/null dist/bin.js`, in a temp workspace, with the shipped
 * config copied twice: `"sandbox": "auto"` (its five plugins confined, in four hosts) and
 * `"sandbox": "off"` (the plugins in the CLI's process). A listing cache and a record of
 * writable spans of its own (`XDG_CACHE_HOME`, `XDG_STATE_HOME` in the temp folder), so the
 * runs depend on nothing left by others; the callers fill the cache with an untimed run first.
 *
 * With `ownBun`, the CLI may also run on a copy of this Bun in the temp folder, which no
 * process outside the CLI's tree maps: PSS shares a file's pages among every process that
 * maps them, so on the installed Bun the tree's figure shrinks with each other Bun running
 * on the machine (the bench's own process, other people's tests).
 */
import { readFileSync, realpathSync } from "node:fs";
import { chmod, copyFile, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { coldEnv } from "../cold-start.ts";
import type { RunMode } from "../harness/mode.ts";
import { REPO_ROOT } from "../harness/paths.ts";
import { runProcess } from "../harness/process.ts";
import { withTempDir } from "../harness/temp.ts";

/** The two configs: the shipped one confined, and with the sandbox off. */
export type SandboxSetting = "auto" | "off";

/** Which Bun runs the CLI: the installed one, or the workspace's own copy (`ownBun`). */
export type BunCopy = "installed" | "own";

/** A workspace and what runs the CLI in it. */
export interface CliWorkspace {
  /** The workspace (the CLI's current folder): `notes.txt` holds `one line`. */
  readonly root: string;
  readonly env: Record<string, string | undefined>;
  /** The config file of `sandbox`. */
  config(sandbox: SandboxSetting): string;
  /** The CLI's command line for `args`, with the config of `sandbox`, on the installed Bun unless `bun` says `own`. */
  argv(sandbox: SandboxSetting, args: readonly string[], bun?: BunCopy): string[];
}

const BIN = join(REPO_ROOT, "apps/cli/dist/bin.js");
const START = join(REPO_ROOT, "apps/cli/scripts/start.ts");
/** A workspace file of one line, which read_file reads. */
export const NOTES = { path: "notes.txt", text: "one line\n" } as const;

const SOURCES = join(REPO_ROOT, "apps/cli/dist/sources.json");
/** Measurements begun again when the bundle is rebuilt under them, at most. */
const ATTEMPTS = 3;

/**
 * Runs `use` with a fresh CLI workspace, removed afterwards. The working tree is shared: when
 * the bundle is rebuilt meanwhile (a source changed, and someone ran the CLI), `use` runs
 * again from the start in a new workspace, so every sample comes from one build.
 */
export async function withCliWorkspace<T>(options: { mode: RunMode; ownBun?: boolean }, use: (cli: CliWorkspace) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    // Builds the CLI bundle when a source is newer (as `bun run plugboard` does), untimed.
    await runProcess([process.execPath, START, "--version"], { cwd: REPO_ROOT, env: coldEnv() });
    const built = builtAt();
    try {
      const result = await inWorkspace(options.ownBun === true, use);
      if (Object.is(builtAt(), built)) return result;
    } catch (error) {
      if (Object.is(builtAt(), built) || attempt === ATTEMPTS) throw error;
    }
    if (attempt === ATTEMPTS) throw new Error(`the CLI bundle was rebuilt during each of ${ATTEMPTS} attempts to measure it`);
    options.mode.progress("sandbox: the CLI bundle was rebuilt meanwhile (a source changed): measuring again on the new one");
  }
}

/** When the bundle in dist/ was built, from its record. */
function builtAt(): number {
  try {
    return (JSON.parse(readFileSync(SOURCES, "utf8")) as { builtAt: number }).builtAt;
  } catch {
    return Number.NaN;
  }
}

async function inWorkspace<T>(ownBun: boolean, use: (cli: CliWorkspace) => Promise<T>): Promise<T> {
  const shipped = JSON.parse(await readFile(join(REPO_ROOT, "apps/cli/plugboard.config.json"), "utf8")) as object;
  return withTempDir("cli", async (dir) => {
    const root = join(dir, "workspace");
    await mkdir(root);
    await writeFile(join(root, NOTES.path), NOTES.text);
    const configs = { auto: join(dir, "confined.json"), off: join(dir, "sandbox-off.json") };
    for (const sandbox of ["auto", "off"] as const) await writeFile(configs[sandbox], JSON.stringify({ ...shipped, sandbox }));
    const env = { ...coldEnv(), XDG_CACHE_HOME: join(dir, "cache"), XDG_STATE_HOME: join(dir, "state") };
    const own = join(dir, "bun");
    if (ownBun) {
      await copyFile(realpathSync(process.execPath), own);
      await chmod(own, 0o755);
    }
    const argv = (sandbox: SandboxSetting, args: readonly string[], bun: BunCopy = "installed") => {
      if (bun === "own" && !ownBun) throw new Error("this CLI workspace has no Bun of its own (ownBun)");
      return [bun === "own" ? own : process.execPath, "--no-env-file", "--config=/dev/null", BIN, ...args, "--config", configs[sandbox]];
    };
    return use({ root, env, config: (sandbox) => configs[sandbox], argv });
  });
}
