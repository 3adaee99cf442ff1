/**
 * Turns a command into its confined form: the same program, started inside its own user,
 * PID, mount (and, without the `network` grant, network) namespaces, restricted by
 * Landlock to the rights its grants name, with an environment that holds none of the
 * app's secrets. The result is a plain command line, so any spawner (an MCP stdio
 * transport included) can start it.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type LandlockRules, RULES_VARIABLE } from "./landlock.ts";
import { type Mechanism, NAMESPACE_FLAGS } from "./mechanism.ts";
import { elfInterpreter } from "./elf-interpreter.ts";
import { resolverListPaths, runtimeReadPaths } from "./runtime-paths.ts";

/** A right a plugin can be granted; the same names as a manifest's permissions. */
export type Grant = "fs.read" | "fs.write" | "process.spawn" | "network";

/** What to confine and with which rights. */
export interface ConfineOptions {
  /** The program and its arguments, e.g. `[process.execPath, "host.ts", …]`. */
  readonly argv: readonly string[];
  readonly grants: readonly Grant[];
  /** The workspace root: readable with `fs.read`, writable with `fs.write`. */
  readonly workspace: string;
  /** Folders of code the program loads (its package, the plugin's): kept readable, with their dependencies. */
  readonly code: readonly string[];
  /** Variables added to the confined environment (which otherwise holds only PATH, locale and the like). */
  readonly env?: Readonly<Record<string, string>>;
  /** Programs besides Bun that may be executed without `process.spawn` (an MCP server's own command). */
  readonly executables?: readonly string[];
  /** The private temp folder to use (the caller owns it); else a new one that `dispose` removes. */
  readonly tempDir?: string;
}

/** A confined command line and the private folder it owns. */
export interface ConfinedCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The private temp folder (`TMPDIR` and `HOME`), writable with `fs.write`. */
  readonly tempDir: string;
  /** Removes the temp folder it made (not one given in the options); call once the process has ended. */
  dispose(): void;
}

/**
 * The confinement entry, found through the package's name rather than this file's place, so
 * that an app bundling this package (the CLI's dist/bin.js) still starts it from the sources.
 */
const CONFINE_MAIN = join(dirname(Bun.resolveSync("@plugboard/sandbox/package.json", import.meta.dir)), "src/confine-main.ts");

/** Variables passed through from the app's environment: never credentials. */
const PASSED = ["PATH", "LANG", "LANGUAGE", "TZ", "TERM", "USER", "LOGNAME"];

/**
 * The confined form of `options.argv`, for an available mechanism.
 *
 * @example const { command, args, env } = confineCommand(detectMechanism(), { argv, grants: ["fs.read"], workspace, code });
 */
export function confineCommand(mechanism: Extract<Mechanism, { available: true }>, options: ConfineOptions): ConfinedCommand {
  const grants = new Set(options.grants);
  const tempDir = options.tempDir ?? mkdtempSync(join(tmpdir(), "plugboard-host-"));
  const bun = realpathSync(process.execPath);
  const programs = [bun, ...(options.executables ?? [])].flatMap(withLoader);
  const rules: LandlockRules = {
    read: [
      ...SYSTEM_READ,
      ...programs,
      ...runtimeReadPaths([...options.code, CONFINE_MAIN]),
      ...(grants.has("fs.read") ? [options.workspace] : []),
    ],
    list: resolverListPaths(options.code),
    write: [...DEVICES, ...(grants.has("fs.write") ? [options.workspace, tempDir] : [])],
    // process.spawn: any program may run, but reads only what `read` grants (a program outside it fails to start).
    execute: grants.has("process.spawn") ? ["/"] : programs,
    network: grants.has("network"),
  };
  const env: Record<string, string> = {};
  for (const name of PASSED) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(process.env)) {
    if (name.startsWith("LC_") && value !== undefined) env[name] = value;
  }
  Object.assign(env, options.env, {
    HOME: tempDir,
    TMPDIR: tempDir,
    BUN_RUNTIME_TRANSPILER_CACHE_PATH: "0",
    [RULES_VARIABLE]: JSON.stringify(rules),
  });
  const namespaces = [...NAMESPACE_FLAGS, ...(grants.has("network") ? [] : ["--net"])];
  return {
    command: mechanism.unshare,
    args: [...namespaces, bun, CONFINE_MAIN, ...options.argv],
    env,
    tempDir,
    dispose: () => {
      if (options.tempDir === undefined) rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/** A program and its dynamic loader (which the kernel executes too): what a host without `process.spawn` may execute. */
function withLoader(program: string): string[] {
  const real = realpathSync(program);
  const loader = elfInterpreter(real);
  return loader === undefined ? [real] : [real, realpathSync(loader)];
}

/** What every program needs to read: system libraries and configuration, its own /proc, devices. */
const SYSTEM_READ = ["/usr", "/lib", "/lib32", "/lib64", "/bin", "/sbin", "/etc", "/proc", "/sys", "/dev"];
/** Devices every program may write. */
const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];
