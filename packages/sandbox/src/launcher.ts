/**
 * Turns a command into its confined form: the same program, started inside its own user,
 * PID, mount (and, without the `network` grant or with one narrowed to a list of hosts,
 * network) namespaces, seeing only the view
 * its grants make (build-view.ts), restricted by Landlock and a seccomp filter, with an
 * environment that holds none of the app's secrets. The result is a plain command line,
 * so any spawner (an MCP stdio transport included) can start it.
 */
import { closeSync, realpathSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import type { Permission } from "@plugboard/core";
import { CONFINED_VARIABLE, unshareFlags, writeAll } from "@plugboard/core/process";
import { TRACE_VARIABLE, tracing } from "@plugboard/core/trace";
import { buildView, DEVICES, PRIVATE_FOLDERS, type ProtectedPath } from "./view/build-view.ts";
import type { ConfinementRules } from "./kernel/confine-main.ts";
import { EGRESS_PORT } from "./network/egress-channel.ts";
import { elfInterpreter } from "./view/elf-interpreter.ts";
import { RULES_FD, RULES_VARIABLE, WORKSPACE_OPTION } from "./kernel/landlock.ts";
import { lastErrno, pipe } from "./kernel/libc.ts";
import type { Limits } from "./limits/limits.ts";
import { HOST_NAMESPACES, type Mechanism } from "./mechanism.ts";
import { type CodeClosure, codeClosure } from "./view/package-closure.ts";
import { limitTree, type TreeLimits } from "./limits/tree-limits.ts";
import { isWithin, type View } from "./view/view.ts";
import { existingGrants, type PathGrants } from "./granted-paths.ts";
import { programLinks } from "./view/program-links.ts";
import { ONE_THREAD } from "./kernel/threads.ts";

export { RULES_FD };

/** What to confine and with which rights. */
export interface ConfineOptions {
  /** The program and its arguments, e.g. `[process.execPath, "host.ts", …]`. */
  readonly argv: readonly string[];
  /** The rights granted: a manifest's permissions. */
  readonly grants: readonly Permission[];
  /**
   * The hosts a `network` grant is narrowed to (the config's `"network"` list): the process
   * then has a network namespace of its own whose only way out is the app's egress proxy
   * (spawn it with `openEgress`'s channel as fd 3). @default any host, through the app's network
   */
  readonly network?: readonly string[];
  /** The workspace root (a real path): readable with `fs.read`, writable with `fs.write`. */
  readonly workspace: string;
  /** Folders of code the program loads (its package, the plugin's): kept readable, with their declared dependencies. */
  readonly code: readonly string[];
  /**
   * Files of code that stand alone (a bundled program and its bytecode, at their real paths):
   * each kept readable by itself, without the package around it. @default none
   */
  readonly codeFiles?: readonly string[];
  /** Variables added to the confined environment (which otherwise holds only PATH, locale and the like). */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Programs besides Bun that may be executed without `process.spawn` (an MCP server's own
   * command), kept readable, each at the path given and at its real path (links on the way kept as links).
   */
  readonly executables?: readonly string[];
  /** Paths granted besides the workspace (the entry's `"read"` and `"write"`, absolute): see granted-paths.ts. @default none */
  readonly paths?: PathGrants;
  /**
   * A real folder mounted, writable, as the process's `HOME` and kept between runs (an MCP
   * server's cache). @default a private, empty `HOME`, writable with `fs.write`, gone with the process
   */
  readonly home?: string;
  /** Paths inside the workspace kept read-only when it is writable, each with the rule that protects it. */
  readonly protect?: readonly ProtectedPath[];
  /** The folder the program starts in. @default the first code folder */
  readonly cwd?: string;
  /**
   * A folder where the code's closure is kept between processes, a file per folder of code and
   * workspace (see `codeClosure`), so that a start only reads those it needs and stats what
   * their walks read. It must lie where no confined process may write. @default walked at each
   * process's first start
   */
  readonly closureCache?: string;
  /**
   * A bundle of `CONFINE_PROGRAM` to run as the confining step (it starts faster than the
   * sources). It must lie where no confined process may write. @default confine-main.ts from its sources
   */
  readonly confineProgram?: string;
  /**
   * The tree's bounds (the config's `"limits"`), enforced by the kernel: its cgroups are made
   * now, joined by its first process before any of the program's code runs, and removed by
   * `ConfinedCommand.limits.remove()` once the tree has ended. @default no bounds
   */
  readonly limits?: Limits;
  /**
   * `argv` is a Bun script (`[Bun, SCRIPT, ...ARGS]`, Bun being the app's): the confining step
   * runs it in its own process once confined, which saves starting a second Bun, unless a
   * thread of the step escaped the confinement (then it is `execve`d as any program).
   * @default false: `execve`
   */
  readonly inPlace?: boolean;
}

/** A confined command line. */
export interface ConfinedCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The folder to start `command` in (outside the view; the program then starts in `ConfineOptions.cwd`). */
  readonly cwd: string;
  /** What the process sees (`sees` tells whether a path is in it). */
  readonly view: View;
  /** Links in the workspace that were not followed into the view (they lead out of it). */
  readonly refusedLinks: CodeClosure["refused"];
  /** The tree's limits, with `ConfineOptions.limits`: how often they refused, and the removal of its cgroups (call it once the tree has ended). */
  readonly limits?: TreeLimits;
}

/**
 * The confinement entry, found through the package's name rather than this file's place, so
 * that an app bundling this package (the CLI's dist/bin.js) still starts it from the sources.
 */
const SANDBOX_FOLDER = dirname(Bun.resolveSync("@plugboard/sandbox/package.json", import.meta.dir));
const CONFINE_MAIN = join(SANDBOX_FOLDER, "src/kernel/confine-main.ts");
/** The confining step as one entry, to bundle (`ConfineOptions.confineProgram`). */
export const CONFINE_PROGRAM = join(SANDBOX_FOLDER, "src/kernel/confine-program.ts");

/**
 * What tells a narrowed process's programs (curl, npm, pip, git, Bun…) to go through the
 * app's proxy, in both spellings; `NO_PROXY` is empty, so that no host is sent around it
 * (there is no other way out: a connection that does not go through the proxy reaches only
 * the process's own network namespace).
 */
const PROXY_URL = `http://127.0.0.1:${EGRESS_PORT}`;
const PROXY_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  [
    ["HTTP_PROXY", PROXY_URL],
    ["HTTPS_PROXY", PROXY_URL],
    ["ALL_PROXY", PROXY_URL],
    ["NO_PROXY", ""],
  ].flatMap(([name = "", value = ""]) => [
    [name, value],
    [name.toLowerCase(), value],
  ]),
);

/** Variables passed through from the app's environment: never credentials. */
const PASSED = ["PATH", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME"];

/**
 * The confined form of `options.argv`, for an available mechanism.
 *
 * @example const { command, args, env } = confineCommand(detectMechanism(), { argv, grants: ["fs.read"], workspace, code });
 */
export function confineCommand(mechanism: Extract<Mechanism, { available: true }>, options: ConfineOptions): ConfinedCommand {
  const where = placesOf(options);
  const launch = launchOf(mechanism, options, where);
  // Made last (its cgroups): nothing after it may throw and leave them behind.
  const made = rulesOf(options, where);
  return {
    ...launch,
    env: { ...launch.env, [RULES_VARIABLE]: made.json },
    cwd: SANDBOX_FOLDER,
    view: made.view,
    refusedLinks: made.refusedLinks,
    ...(made.limits === undefined ? {} : { limits: made.limits }),
  };
}

/** What a confining step's command line and environment depend on; the rest of its options come with its rules. */
export type LaunchOptions = Pick<ConfineOptions, "grants" | "network" | "workspace" | "env" | "confineProgram">;

/**
 * A confining step started before its rules are made (`confineAhead`), perhaps before the
 * app knows which program it will run: its command line names none, and its rules (the
 * program among them) come later on its own pipe.
 */
export interface AheadConfinedCommand extends Pick<ConfinedCommand, "command" | "args" | "env" | "cwd"> {
  /** The confining step's end of the rules' pipe: spawn the process with it as `stdio[RULES_FD]`. */
  readonly rulesFd: number;
  /** Says the process is spawned (or failed to spawn): the app's copy of `rulesFd` is closed. */
  spawned(): void;
  /** Whether a process confined with `options` is this one: the same command line and environment. */
  fits(options: LaunchOptions): boolean;
  /**
   * Makes the rules of `options` (which must fit) with the paths to protect (the view, then
   * the tree's cgroups), sends them and closes the pipe; returns what they made. Throws as
   * `confineCommand` does, the pipe closed all the same: a confining step whose rules end
   * before their line runs nothing.
   */
  send(options: Omit<ConfineOptions, "protect">, protect: readonly ProtectedPath[]): Omit<ConfinedCommand, keyof AheadConfinedCommand>;
  /** Closes the pipe without rules (the process could not be spawned, or is not needed): it runs nothing. */
  abandon(): void;
}

/**
 * `confineCommand`, split so that the process starts while its rules are made, perhaps before
 * the app knows what it will run (a plugin's host about to be called, while the app still
 * finds its plugins): the command line and environment now, from `launch` alone (the program
 * to run is not on it). Spawn the process with `rulesFd` as `stdio[RULES_FD]`, then call
 * `spawned()`. `send(options, protect)` makes the rules, the program among them; the
 * confining step reads them on `RULES_FD` before it does anything else, and ends (126)
 * without running anything when that pipe ends without a whole line of rules (`abandon`).
 * `fits` tells whether a process to confine with given options may be this one. Throws when
 * the pipe cannot be made.
 *
 * `mechanism` may be one whose namespace probe has not answered yet (`unshareAhead`).
 *
 * @example const step = confineAhead({ unshare }, { grants: [], workspace }); const child = Bun.spawn([step.command, ...step.args], { env: step.env, cwd: step.cwd, stdio: ["pipe", "pipe", "pipe", "ignore", step.rulesFd] }); step.spawned(); … if (step.fits(options)) step.send(options, protect); else step.abandon();
 */
export function confineAhead(mechanism: Pick<Extract<Mechanism, { available: true }>, "unshare">, launch: LaunchOptions): AheadConfinedCommand {
  const where = placesOf(launch);
  const made = launchOf(mechanism, launchPart(launch), where);
  const fds = pipe();
  if (fds === undefined) throw new Error(`the confining step's rules need a pipe: pipe2 failed, errno ${lastErrno()}`);
  const [read, write] = fds;
  let readOpen = true;
  let writeOpen = true;
  const closeRead = () => {
    if (readOpen) closeSync(read);
    readOpen = false;
  };
  const closeWrite = () => {
    if (writeOpen) closeSync(write);
    writeOpen = false;
  };
  const fits = (options: LaunchOptions) => {
    const other = launchOf(mechanism, launchPart(options), placesOf(options));
    return Bun.deepEquals(other, made, true);
  };
  return {
    ...made,
    env: { ...made.env, [RULES_VARIABLE]: `fd:${RULES_FD}` },
    cwd: SANDBOX_FOLDER,
    rulesFd: read,
    spawned: closeRead,
    fits,
    send: (options, protect) => {
      closeRead();
      try {
        if (!fits(options)) throw new Error("these options need another confining step: its command line or environment differ");
        const rules = rulesOf({ ...options, protect }, where, { program: true });
        writeWhole(write, `${rules.json}\n`);
        return { view: rules.view, refusedLinks: rules.refusedLinks, ...(rules.limits === undefined ? {} : { limits: rules.limits }) };
      } finally {
        closeWrite();
      }
    },
    abandon: () => {
      closeRead();
      closeWrite();
    },
  };
}

/** Only what a launch depends on: never the program, which an ahead step's rules name. */
function launchPart({ grants, network, workspace, env, confineProgram }: LaunchOptions): LaunchOptions {
  return { grants, workspace, ...(network === undefined ? {} : { network }), ...(env === undefined ? {} : { env }), ...(confineProgram === undefined ? {} : { confineProgram }) };
}

/** Writes all of `text` on the blocking pipe `fd`; a reader gone (EPIPE) is no error here: the process's exit says why it went. */
function writeWhole(fd: number, text: string): void {
  try {
    writeAll(fd, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
  }
}

/** Where the confined process's command line and rules start from, found once: the workspace and Bun at their real paths, and its `HOME`. */
interface Places {
  readonly workspace: string;
  readonly bun: string;
  readonly home: string;
}

function placesOf(options: Pick<ConfineOptions, "workspace">): Places {
  const workspace = realpathSync(options.workspace);
  return { workspace, bun: realpathSync(process.execPath), home: homeIn(workspace) };
}

/** The confined process's command line (with `argv`, the program, when the rules will not name it) and environment, without its rules (the caller adds them, or where to read them). */
function launchOf(mechanism: Pick<Extract<Mechanism, { available: true }>, "unshare">, options: LaunchOptions & { readonly argv?: readonly string[] }, { workspace, bun, home }: Places): { command: string; args: string[]; env: Record<string, string> } {
  const sockets = socketsOf(new Set<string>(options.grants), options.network);
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("LC_") && value !== undefined) env[name] = value;
  }
  Object.assign(env, options.env, {
    HOME: home,
    TMPDIR: "/tmp",
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
    // The step runs on one thread, so that a script can run in it once confined (kernel/threads.ts); removed before its program runs.
    ...ONE_THREAD,
    // No namespace can be made in here: core's probe for one (a bash call's PID namespace) is skipped.
    [CONFINED_VARIABLE]: "1",
    ...(sockets === "inet" ? PROXY_ENV : {}),
    // The app traces its stages (a flag, no secret): the confining step and the program trace theirs.
    ...(tracing ? { [TRACE_VARIABLE]: "1" } : {}),
  });
  const namespaces = unshareFlags({ ...HOST_NAMESPACES, net: sockets !== "any" });
  // The workspace on the command line says, in `ps` and /proc, what the process is confined to (a program run in place has no command line of its own).
  return { command: mechanism.unshare, args: [...namespaces, bun, options.confineProgram ?? CONFINE_MAIN, WORKSPACE_OPTION, workspace, ...(options.argv ?? [])], env };
}

/** Which sockets the confined process may make: IPv4 and IPv6 only for a narrowed network (to the proxy), any with the whole network, none without it. */
function socketsOf(grants: ReadonlySet<string>, network: readonly string[] | undefined): "inet" | "any" | "none" {
  if (!grants.has("network")) return "none";
  return network === undefined ? "any" : "inet";
}

/**
 * The rules the confining step applies (as JSON; with `program`, the program to run too), the
 * view they make, the links refused and, with limits, the tree's cgroups (made last).
 */
function rulesOf(options: ConfineOptions, { workspace, bun, home }: Places, { program = false } = {}): { json: string; view: View; refusedLinks: CodeClosure["refused"]; limits: TreeLimits | undefined } {
  const grants = new Set<string>(options.grants);
  const programs = [...new Set([bun, ...(options.executables ?? [])].flatMap(withLoader))];
  const closure = codeClosure([...options.code, SANDBOX_FOLDER], [workspace], options.closureCache);
  const code = options.codeFiles === undefined ? closure : { ...closure, files: [...new Set([...closure.files, ...options.codeFiles])] };
  const cwd = options.cwd ?? options.code[0] ?? workspace;
  const write = existingGrants(options.paths?.write, options.paths?.reserved);
  const view = buildView({
    grants,
    workspace,
    code,
    programs,
    programLinks: (options.executables ?? []).flatMap(programLinks),
    read: existingGrants(options.paths?.read, options.paths?.reserved),
    write,
    home,
    ...(options.home === undefined ? {} : { homeSource: options.home }),
    protect: options.protect ?? [],
    cwd,
  });
  const writes = grants.has("fs.write");
  const sockets = socketsOf(grants, options.network);
  const rules: ConfinementRules = {
    view,
    landlock: {
      // The view is what can be read; Landlock keeps writes and execution to the grants.
      read: ["/"],
      // A persistent HOME (an MCP server's cache) is its own, writable without fs.write.
      write: [...DEVICES, ...(writes ? [workspace, ...PRIVATE_FOLDERS] : []), ...(writes || options.home !== undefined ? [home] : []), ...write],
      // process.spawn: any program in the view may run.
      execute: grants.has("process.spawn") ? ["/"] : programs,
      network: grants.has("network"),
    },
    seccomp: { network: sockets },
    ...(sockets === "inet" ? { egress: true } : {}),
    ...(program ? { argv: options.argv } : {}),
    ...(options.inPlace === true ? { inPlace: true as const } : {}),
  };
  // Made last: nothing above may throw and leave them behind.
  const limits = options.limits === undefined ? undefined : limitTree(options.limits);
  return { json: JSON.stringify(limits === undefined ? rules : { ...rules, limits: limits.rules }), view, refusedLinks: code.refused, limits };
}

/** The user's home path, where the private `HOME` goes, unless the workspace is there (then `/tmp/home`). */
function homeIn(workspace: string): string {
  const home = homedir();
  return home === "/" || isWithin(home, workspace) ? "/tmp/home" : home;
}

/** A program and its dynamic loader (which the kernel executes too): what a host without `process.spawn` may execute. */
function withLoader(program: string): string[] {
  const real = realpathSync(program);
  const loader = elfInterpreter(real);
  return loader === undefined ? [real] : [real, realpathSync(loader)];
}
