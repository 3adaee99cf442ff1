/**
 * The confined form of a stdio MCP server's command line: exactly its entry's grants (its
 * permissions and its `read` and `write` paths). Its arguments never widen what it sees (a
 * file they name that it cannot see is reported, for the start-up error); its program (found
 * on its PATH, wherever it lies: server-program.ts) and, for a script, the script's package
 * and interpreter stay readable and executable (a script in the
 * workspace, outside its `node_modules`, is the workspace's: only the file itself, the rest
 * per `fs.read`); and it keeps a cache
 * folder of its own between runs, mounted as its `HOME` and writable by it alone, so that a
 * server started with `npx -y` or `uvx` starts from that cache the second time — without
 * `network` too, where npm and uv are told they are offline rather than left to retry a
 * registry they cannot reach.
 */
import { mkdirSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { coreFolder, underInit } from "@plugboard/core/process";
import { confineCommand } from "./launcher.ts";
import type { Limits } from "./limits/limits.ts";
import type { Mechanism } from "./mechanism.ts";
import { openEgress } from "./network/egress.ts";
import type { EgressRecord } from "./network/egress-proxy.ts";
import type { ProtectedPath } from "./view/build-view.ts";
import { isWithin, sees, type View } from "./view/view.ts";
import { cacheFolder, existingGrants, type PathGrants } from "./granted-paths.ts";
import type { Permission } from "@plugboard/core";
import type { LimitTally } from "./limits/limit-tally.ts";
import { programFiles } from "./server-program.ts";

/** What a server's confinement needs to know besides its command line. */
export interface ServerConfinement {
  /** The entry's `name`, which names its cache folder. */
  readonly name: string;
  readonly grants: readonly Permission[];
  /** The hosts its `network` grant is narrowed to (the entry's `"network"`); none: any host. */
  readonly network?: readonly string[];
  /** Told of each connection a narrowed server asks its egress proxy for (the audit log). */
  readonly onConnection?: (record: EgressRecord) => void;
  readonly workspace: string;
  readonly configPath: string;
  readonly protect: readonly ProtectedPath[];
  /** Where servers' cache folders live (`serverCacheRoot`); none: a private, empty HOME each start. */
  readonly cacheRoot: string | undefined;
  /** Told when the cache folder cannot be made (the server then starts with a private, empty HOME). */
  readonly warn: (message: string) => void;
  /** The server's bounds (the config's `"limits"`), and where its trees' refusals are counted. @default none */
  readonly limits?: { readonly values: Limits; readonly tally: LimitTally };
  /** Paths its entry grants besides the workspace (`"read"`, `"write"`). @default none */
  readonly paths?: PathGrants;
  /** Told at each start of the existing files its arguments name outside the workspace that it cannot see (a start that fails then says so). */
  readonly unseen?: (files: readonly string[]) => void;
}

/**
 * Set for a server without `network` unless its entry's `env` says otherwise: npm (behind
 * `npx`) would otherwise retry the registry for over a minute before falling back to its
 * cache, and uv (behind `uvx`) try its index once its cached answers are stale. Offline, a
 * cached package starts at once and an uncached one fails at once, saying so.
 */
const OFFLINE: Readonly<Record<string, string>> = { npm_config_offline: "true", UV_OFFLINE: "1" };

/** The folder holding each stdio server's cache: `$XDG_CACHE_HOME/plugboard/servers`, else `~/.cache/plugboard/servers`. */
export function serverCacheRoot(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const folder = cacheFolder(env);
  return folder === undefined ? undefined : join(folder, "servers");
}

/** A server's command line as `@plugboard/mcp`'s launcher hook passes it (its `Launch`). */
export interface Launch {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
  readonly fds?: readonly number[];
  readonly spawned?: () => void;
  readonly ended?: () => Promise<void>;
}

/** The confined launch of `launch`; with a narrowed `network`, its egress proxy serves from its spawn until its tree ends. */
export function confineServer(launch: Launch, server: ServerConfinement, mechanism: Extract<Mechanism, { available: true }>): Launch {
  const [program = "", ...args] = launch.argv;
  const found = Bun.which(program, { PATH: launch.env.PATH ?? "", cwd: launch.cwd ?? server.workspace }) ?? program;
  const workspace = realpathSync(server.workspace);
  const { executables, code, installations } = programFiles(found, launch.env.PATH ?? "", workspace);
  // The granted paths against Plugboard's own folders, before the installations join them (an npx server's lie in its cache).
  for (const granted of [server.paths?.read, server.paths?.write]) existingGrants(granted, server.paths?.reserved);
  const paths = { read: [...(server.paths?.read ?? []), ...installations], write: server.paths?.write ?? [] };
  const home = server.cacheRoot === undefined ? undefined : serverCacheFolder(server);
  const network = server.grants.includes("network") ? server.network : undefined;
  const confined = confineCommand(mechanism, {
    // Our init is the first process of the server's tree: it reaps what the server orphans, and the server is no PID 1.
    argv: underInit([found, ...args]),
    grants: server.grants,
    ...(network === undefined ? {} : { network }),
    workspace: server.workspace,
    code: [...code, coreFolder()],
    executables,
    paths,
    env: server.grants.includes("network") ? launch.env : { ...OFFLINE, ...launch.env },
    protect: server.protect,
    cwd: launch.cwd ?? server.workspace,
    ...(home === undefined ? {} : { home }),
    ...(server.limits === undefined ? {} : { limits: server.limits.values }),
  });
  server.unseen?.(unseenFiles(args, launch.cwd ?? server.workspace, workspace, confined.view));
  const ended = server.limits?.tally.track(confined.limits);
  const launched = { argv: [confined.command, ...confined.args], env: confined.env, cwd: confined.cwd, ...(ended === undefined ? {} : { ended }) };
  if (network === undefined) return launched;
  const egress = openEgress({ plugin: server.name, network, ...(server.onConnection ? { onConnection: server.onConnection } : {}) });
  return { ...launched, fds: [egress.childFd], spawned: () => egress.spawned() };
}

/** The server's own cache folder (0700), one per config and server name; undefined (said) when it cannot be made. */
function serverCacheFolder(server: ServerConfinement): string | undefined {
  const key = new Bun.CryptoHasher("sha256").update(`${server.configPath}\0${server.name}`).digest("hex").slice(0, 16);
  const safe = server.name.replace(/[^A-Za-z0-9._-]/g, "_").slice(0, 64);
  const folder = join(server.cacheRoot ?? "", `${safe}-${key}`);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    return folder;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    server.warn(`MCP server ${server.name}: its cache folder cannot be made (${why}); it starts with an empty HOME each time (set XDG_CACHE_HOME to a folder you can write)`);
    return undefined;
  }
}

/**
 * The existing files `args` name (absolute, or relative to `cwd`) that lie outside the
 * workspace and are not in the server's `view`: a script given to an interpreter
 * (`node /opt/srv/index.js`) cannot be run, and the start-up error says which `"read"` fixes it.
 */
function unseenFiles(args: readonly string[], cwd: string, workspace: string, view: View): string[] {
  const files: string[] = [];
  for (const arg of args) {
    if (arg.startsWith("-") || !arg.includes("/")) continue;
    let real: string;
    try {
      real = realpathSync(resolve(cwd, arg));
      if (!statSync(real).isFile()) continue;
    } catch {
      continue;
    }
    if (!isWithin(real, workspace) && !sees(view, real)) files.push(real);
  }
  return files;
}

