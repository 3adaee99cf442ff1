/**
 * The app's side of a confined plugin: start its host through the sandbox's launcher and
 * mount the host's tools with `@plugboard/mcp`'s client, so each call crosses to the host
 * (cancel included); or, when the listing cache knows its tools, mount them and start the
 * host on the first call. A host that dies fails the call in flight with an `Error:` result
 * and is started again on the next call; hosts end with the app.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Logger } from "@plugboard/core";
import type { RegistryEntry } from "@plugboard/core/internal";
import { PlugboardError } from "../errors.ts";
import { type Launch, McpMount, McpMountError, type MountOptions } from "@plugboard/mcp/mount";
import { confineCommand, type Mechanism } from "@plugboard/sandbox";
import { type LoadedPlugin, loadedPlugin } from "../loaded-plugin.ts";
import type { Permission } from "../permissions.ts";
import type { ResolvedPlugin } from "../resolve-plugin.ts";
import { type HostSpec, hostErrorIn } from "./host-spec.ts";
import { ListingCache } from "./listing-cache.ts";

/**
 * The bootstrap's own package: the host's code, with its dependencies. Found through the
 * package's name rather than this file's place, so that an app bundled with `bun build`
 * (the CLI's dist/bin.js) still starts the host from the package's sources.
 */
const BOOTSTRAP_FOLDER = dirname(Bun.resolveSync("@plugboard/bootstrap/package.json", import.meta.dir));
const HOST_MAIN = join(BOOTSTRAP_FOLDER, "src/plugin-host/host-main.ts");

/** A plugin running in its host: its description, its proxied tools, and how to end it. */
export interface HostedPlugin {
  readonly plugin: LoadedPlugin;
  readonly entries: readonly RegistryEntry[];
  readonly mount: McpMount;
  /** Ends the host and removes its private temp folder. */
  close(): Promise<void>;
}

/** Where a host's listing is kept between runs, and whether to use what is kept. */
export interface HostListing {
  /** The cache folder (`listingCacheFolder`); none: always start and list. */
  readonly cacheFolder: string | undefined;
  /** Start and list even when a listing is kept (and keep the new one). */
  readonly fresh: boolean;
}

/** Where hosts run and report, and how their listings are cached. */
export interface HostContext {
  /** The workspace root. */
  readonly workspace: string;
  readonly logger: Logger;
  readonly listing?: HostListing;
  /**
   * The host's program: an app's bundle of `@plugboard/bootstrap/plugin-host` (the CLI's
   * `dist/host.js`), whose folder stays readable to the host. @default this package's host-main.ts
   */
  readonly hostProgram?: string;
}

/**
 * The host of `resolved`, confined by `mechanism` with the entry's grants. When the listing
 * cache holds its tools for an unchanged plugin (see listing-cache.ts), nothing starts now:
 * the host starts on the first call. Otherwise it starts and lists its tools here, and the
 * listing is kept. Throws the plugin's load error (the same `PlugboardError` as in-process
 * loading) or `PLUGIN_HOST` when the host fails otherwise.
 */
export async function startHost(
  resolved: ResolvedPlugin,
  mechanism: Extract<Mechanism, { available: true }>,
  context: HostContext,
): Promise<HostedPlugin> {
  const { manifest, entry } = resolved;
  const spec: HostSpec = { resolved, workspace: context.workspace };
  let tempDir: string | undefined;
  const launcher = (launch: Launch): Launch => {
    tempDir ??= privateTemp();
    const confined = confineCommand(mechanism, {
      argv: launch.argv,
      grants: entry.permissions,
      workspace: context.workspace,
      code: [resolved.directory, BOOTSTRAP_FOLDER, ...(context.hostProgram === undefined ? [] : [dirname(context.hostProgram)])],
      tempDir,
    });
    // Not the workspace: without fs.read it is unreadable, and Bun reads its current folder when it resolves imports.
    return { argv: [confined.command, ...confined.args], env: confined.env, cwd: resolved.directory };
  };
  const options: MountOptions = {
    name: manifest.name,
    server: { command: process.execPath, args: [context.hostProgram ?? HOST_MAIN, JSON.stringify(spec)] },
    launcher,
    logger: context.logger,
    // A host started for a call (mounted from the listing cache, or after a crash) that fails
    // says what the eager start would: the plugin's load error, its first line.
    startFailure: (error) => (error instanceof McpMountError ? hostStartError(manifest.name, error).message.split("\n")[0] : undefined),
  };
  const cache = context.listing?.cacheFolder === undefined ? undefined : listingCache(context.listing.cacheFolder, resolved, mechanism, context);
  const kept = context.listing?.fresh === true ? undefined : cache?.read();
  const removeTempDir = () => {
    if (tempDir !== undefined) removeTemp(tempDir);
  };
  let mount: McpMount;
  if (kept !== undefined) mount = McpMount.deferred(options, kept);
  else {
    try {
      mount = await McpMount.open(options);
    } catch (error) {
      removeTempDir();
      if (!(error instanceof McpMountError)) throw error;
      throw hostStartError(manifest.name, error);
    }
    cache?.write(mount.listing());
  }
  const close = async () => {
    await mount.close();
    removeTempDir();
  };
  return { plugin: loadedPlugin(resolved), entries: mount.entries(), mount, close };
}

/** Why a host did not start: the plugin's load error it reported, else `PLUGIN_HOST` with the mount's reason. */
function hostStartError(plugin: string, error: McpMountError): PlugboardError {
  return hostErrorIn(error.stderr) ?? new PlugboardError("PLUGIN_HOST", `Plugin ${plugin}: ${error.message}`, { cause: error });
}

/** The host's code: a change to it changes what a host lists (its annotations, its checks). */
const HOST_FILES = [
  HOST_MAIN,
  join(BOOTSTRAP_FOLDER, "src/load-plugin.ts"),
  join(BOOTSTRAP_FOLDER, "src/plugin-options.ts"),
  Bun.resolveSync("@plugboard/mcp/serve", BOOTSTRAP_FOLDER),
];

/** The listing cache's entry of `resolved`'s host, as `startHost` finds it (exported for tests). */
export function listingCache(
  folder: string,
  resolved: ResolvedPlugin,
  mechanism: Extract<Mechanism, { available: true }>,
  context: HostContext,
): ListingCache | undefined {
  const hostFiles = context.hostProgram === undefined ? HOST_FILES : [...HOST_FILES, context.hostProgram];
  return ListingCache.of(folder, resolved, { workspace: context.workspace, mechanism: mechanism.description, hostFiles }, context.logger);
}

/**
 * The confined form of a stdio MCP server's command line: its program (found on its PATH)
 * may execute, the folders its arguments name stay readable, and its rights are `grants`.
 */
export function confineServer(launch: Launch, grants: readonly Permission[], mechanism: Extract<Mechanism, { available: true }>, workspace: string): Launch {
  const [program = "", ...args] = launch.argv;
  const found = Bun.which(program, { PATH: launch.env.PATH ?? "", cwd: launch.cwd ?? workspace }) ?? program;
  const named = args.filter((arg) => isAbsolute(arg) || existsSync(resolve(launch.cwd ?? workspace, arg))).map((arg) => resolve(launch.cwd ?? workspace, arg));
  const confined = confineCommand(mechanism, {
    argv: [found, ...args],
    grants,
    workspace,
    code: named.map((path) => (statSync(path, { throwIfNoEntry: false })?.isDirectory() ? path : dirname(path))),
    executables: [found],
    env: launch.env,
    tempDir: privateTemp(),
  });
  return { argv: [confined.command, ...confined.args], env: confined.env, cwd: launch.cwd };
}

const tempDirs = new Set<string>();
let removedOnExit = false;

/** One private temp folder per host, removed when it closes, or else when the app exits. */
function privateTemp(): string {
  const dir = mkdtempSync(join(tmpdir(), "plugboard-host-"));
  if (!removedOnExit) {
    removedOnExit = true;
    process.once("exit", () => {
      for (const folder of tempDirs) rmSync(folder, { recursive: true, force: true });
    });
  }
  tempDirs.add(dir);
  return dir;
}

function removeTemp(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}
