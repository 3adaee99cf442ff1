/**
 * The app's side of a confined plugin: start its host through the sandbox's launcher and
 * mount the host's tools with `@plugboard/mcp`'s client, so each call crosses to the host
 * (cancel included); or, when the listing cache knows its tools, mount them and start the
 * host on the first call. A host that dies fails the call in flight with an `Error:` result
 * and is started again on the next call; hosts end with the app. A result that shows what
 * the sandbox refused ends with the grant that would allow it (refusal-hint.ts).
 */
import { dirname, join } from "node:path";
import type { Logger } from "@plugboard/core";
import type { RegistryEntry } from "@plugboard/core/internal";
import { PlugboardError } from "../errors.ts";
import { type Launch, McpMount, McpMountError, type MountOptions } from "@plugboard/mcp/mount";
import { confineCommand, type Mechanism, type ProtectedPath } from "@plugboard/sandbox";
import { type LoadedPlugin, loadedPlugin } from "../loaded-plugin.ts";
import type { ResolvedPlugin } from "../resolve-plugin.ts";
import { type HostSpec, hostErrorIn } from "./host-spec.ts";
import { ListingCache } from "./listing-cache.ts";
import { explainingRefusals } from "./refusal-hint.ts";

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
  /** Ends the host. */
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
  /** The paths inside the workspace no host may write, as they are when a host starts (see protected-paths.ts). @default none */
  readonly protect?: () => readonly ProtectedPath[];
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
  let warned = false;
  // What the running host's view protects, for the refusal hints.
  let protect: readonly ProtectedPath[] = [];
  const launcher = (launch: Launch): Launch => {
    protect = context.protect?.() ?? [];
    const confined = confineCommand(mechanism, {
      argv: launch.argv,
      grants: entry.permissions,
      workspace: context.workspace,
      code: [resolved.directory, BOOTSTRAP_FOLDER, ...(context.hostProgram === undefined ? [] : [dirname(context.hostProgram)])],
      protect,
      // Not the workspace: without fs.read it is not in the view, and Bun reads its current folder when it resolves imports.
      cwd: resolved.directory,
    });
    if (!warned) {
      warned = true;
      for (const link of confined.refusedLinks) {
        context.logger.warn(`${manifest.name}: not following ${link.path} to ${link.target}: a link in the workspace, which confined plugins may write, must not lead out of it`);
      }
    }
    return { argv: [confined.command, ...confined.args], env: confined.env, cwd: confined.cwd };
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
  let mount: McpMount;
  if (kept !== undefined) mount = McpMount.deferred(options, kept);
  else {
    try {
      mount = await McpMount.open(options);
    } catch (error) {
      if (!(error instanceof McpMountError)) throw error;
      throw hostStartError(manifest.name, error);
    }
    cache?.write(mount.listing());
  }
  const refusals = {
    plugin: manifest.name,
    grants: entry.permissions,
    offered: [...manifest.permissions, ...manifest.optionalPermissions],
    workspace: context.workspace,
    get protect() {
      return protect;
    },
    configPath: resolved.where.configPath,
  };
  const entries = mount.entries().map((hosted) => explainingRefusals(hosted, refusals));
  return { plugin: loadedPlugin(resolved), entries, mount, close: () => mount.close() };
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

