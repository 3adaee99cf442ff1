/**
 * The app's side of a confined plugin: start its host through the sandbox's launcher and
 * mount the host's tools with `@plugboard/mcp`'s client, so each call crosses to the host
 * (cancel included). A host that dies fails the call in flight with an `Error:` result and
 * is started again on the next call; hosts end with the app.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Logger } from "@plugboard/core";
import type { RegistryEntry } from "@plugboard/core/internal";
import { PlugboardError } from "../errors.ts";
import { type Launch, McpMount, McpMountError } from "@plugboard/mcp";
import { confineCommand, type Mechanism } from "@plugboard/sandbox";
import { type LoadedPlugin, loadedPlugin } from "../load-plugin.ts";
import type { Permission } from "../permissions.ts";
import type { ResolvedPlugin } from "../resolve-plugin.ts";
import { type HostSpec, hostErrorIn } from "./host-spec.ts";

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

/**
 * Starts `resolved`'s host, confined by `mechanism` with the entry's grants, and lists its
 * tools. Throws the plugin's load error (the same `PlugboardError` as in-process loading)
 * or `PLUGIN_HOST` when the host fails otherwise.
 */
export async function startHost(
  resolved: ResolvedPlugin,
  mechanism: Extract<Mechanism, { available: true }>,
  context: { workspace: string; logger: Logger },
): Promise<HostedPlugin> {
  const { manifest, entry } = resolved;
  const spec: HostSpec = { resolved, workspace: context.workspace };
  const tempDir = privateTemp();
  const launcher = (launch: Launch): Launch => {
    const confined = confineCommand(mechanism, {
      argv: launch.argv,
      grants: entry.permissions,
      workspace: context.workspace,
      code: [resolved.directory, BOOTSTRAP_FOLDER],
      tempDir,
    });
    // Not the workspace: without fs.read it is unreadable, and Bun reads its current folder when it resolves imports.
    return { argv: [confined.command, ...confined.args], env: confined.env, cwd: resolved.directory };
  };
  let mount: McpMount;
  try {
    mount = await McpMount.open({
      name: manifest.name,
      server: { command: process.execPath, args: [HOST_MAIN, JSON.stringify(spec)] },
      launcher,
      logger: context.logger,
    });
  } catch (error) {
    removeTemp(tempDir);
    if (!(error instanceof McpMountError)) throw error;
    throw hostErrorIn(error.stderr) ?? new PlugboardError("PLUGIN_HOST", `Plugin ${manifest.name}: ${error.message}`, { cause: error });
  }
  const plugin = loadedPlugin(resolved);
  const close = async () => {
    await mount.close();
    removeTemp(tempDir);
  };
  return { plugin, entries: mount.entries(), mount, close };
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
