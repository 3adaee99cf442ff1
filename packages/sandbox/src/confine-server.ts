/**
 * The confined form of a stdio MCP server's command line: exactly its entry's grants. Its
 * arguments never widen what it sees; its program (found on its PATH) and, for a script,
 * the script's package and interpreter stay readable and executable (a script in the
 * workspace, outside its `node_modules`, is the workspace's: only the file itself, the rest
 * per `fs.read`); and it keeps a cache
 * folder of its own between runs, mounted as its `HOME` and writable by it alone, so that a
 * server started with `npx -y` or `uvx` starts from that cache the second time — without
 * `network` too, where npm and uv are told they are offline rather than left to retry a
 * registry they cannot reach.
 */
import { createHash } from "node:crypto";
import { closeSync, existsSync, mkdirSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { CORE_FOLDER, underInit } from "@plugboard/core/process";
import { confineCommand } from "./launcher.ts";
import type { Limits } from "./limits/limits.ts";
import type { Mechanism } from "./mechanism.ts";
import { openEgress } from "./network/egress.ts";
import type { EgressRecord } from "./network/egress-proxy.ts";
import type { ProtectedPath } from "./view/build-view.ts";
import { isWithin, sees, type View } from "./view/view.ts";
import type { PathGrants } from "./granted-paths.ts";
import type { Permission } from "@plugboard/core";
import type { LimitTally } from "./limits/limit-tally.ts";

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
  const base = env.XDG_CACHE_HOME || (env.HOME ? join(env.HOME, ".cache") : undefined);
  return base === undefined ? undefined : join(base, "plugboard", "servers");
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
  const paths = { read: [...(server.paths?.read ?? []), ...installations], write: server.paths?.write ?? [] };
  const home = server.cacheRoot === undefined ? undefined : cacheFolder(server);
  const network = server.grants.includes("network") ? server.network : undefined;
  const confined = confineCommand(mechanism, {
    // Our init is the first process of the server's tree: it reaps what the server orphans, and the server is no PID 1.
    argv: underInit([found, ...args]),
    grants: server.grants,
    ...(network === undefined ? {} : { network }),
    workspace: server.workspace,
    code: [...code, CORE_FOLDER],
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
function cacheFolder(server: ServerConfinement): string | undefined {
  const key = createHash("sha256").update(`${server.configPath}\0${server.name}`).digest("hex").slice(0, 16);
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

/** What running a program needs (see `programFiles`). */
interface ProgramFiles {
  /** The program at the path found and its real path (the launcher keeps the links between), its interpreter, what it runs in its place. */
  readonly executables: string[];
  /** A script's folder, with its package's dependencies. */
  readonly code: string[];
  /** The package or installation the program belongs to, read-only whole (see `installationOf`). */
  readonly installations: string[];
}

/**
 * What running `program` needs, wherever it lies (under HOME, in a version manager's folder,
 * in a temp-folder npm prefix): the file found and its real path (with its dynamic loader,
 * which the launcher adds), the package or installation it belongs to, and for a script its
 * interpreter (`#!/usr/bin/env node` finds node on `PATH`) and the folder it lies in, with
 * that package's dependencies. Nothing else of the folders they lie in.
 */
function programFiles(program: string, path: string, workspace: string): ProgramFiles {
  let real: string;
  try {
    real = realpathSync(program);
  } catch {
    // Not found: the server fails to start, and says so.
    return { executables: [], code: [], installations: [] };
  }
  const own = [...new Set([program, real])];
  const installations = installationOf(program, real);
  const interpreter = shebang(real);
  if (interpreter === undefined) return { executables: [...own, ...companions(real)], code: [], installations };
  const [command = "", first] = interpreter;
  const named = command.endsWith("/env") && first !== undefined ? (Bun.which(first, { PATH: path }) ?? first) : command;
  const inner = programFiles(named, path, workspace);
  // The kernel executes the `#!` line's program (`/usr/bin/env`) too.
  const launcher = named === command ? [] : programFiles(command, path, workspace).executables;
  return {
    executables: [...own, ...launcher, ...inner.executables],
    code: [...scriptCode(real, workspace), ...inner.code],
    installations: [...installations, ...inner.installations],
  };
}

/**
 * The package or installation a program belongs to: the npm package holding its real file,
 * found below the prefix it was found in (`<prefix>/bin/bun` → `<prefix>/lib/node_modules/bun`,
 * not the other global packages beside it), or a version manager's folder when the program is
 * one of its shims (`~/.pyenv/shims/python3` → `~/.pyenv`, which the shim runs from).
 */
function installationOf(program: string, real: string): string[] {
  const prefix = dirname(dirname(program));
  if (basename(dirname(real)) === "shims") return [dirname(dirname(real))];
  for (let folder = dirname(real); folder !== prefix && isWithin(folder, prefix) && folder !== dirname(folder); folder = dirname(folder)) {
    if (existsSync(join(folder, "package.json"))) return [folder];
  }
  return [];
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

/**
 * The folder whose package a script loads: none for a script in the workspace outside its
 * `node_modules`, whose package would be the workspace (or part of it), seen only per
 * `fs.read`; the script file itself stays readable as the program.
 */
function scriptCode(script: string, workspace: string): string[] {
  const folder = dirname(script);
  return !isWithin(folder, workspace) || relative(workspace, folder).split(sep).includes("node_modules") ? [folder] : [];
}

/** Programs a binary executes in its place: `uvx` is the `uv` beside it (`uv tool uvx …`), found beside its real path. */
function companions(real: string): string[] {
  const name = basename(real);
  if (!name.startsWith("uvx")) return [];
  const uv = join(dirname(real), `uv${name.slice("uvx".length)}`);
  return existsSync(uv) ? [uv] : [];
}

/** The interpreter and its first argument of a `#!` script, or undefined. */
function shebang(file: string): string[] | undefined {
  const fd = openSync(file, "r");
  try {
    const head = Buffer.alloc(256);
    const length = readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, length).toString("utf8");
    if (!text.startsWith("#!")) return undefined;
    return text.slice(2).split("\n")[0]?.trim().split(/\s+/).filter((part) => part !== "-S");
  } finally {
    closeSync(fd);
  }
}
