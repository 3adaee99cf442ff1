/**
 * The confining step of a plugin host's start, inside the host's new namespaces: join the
 * tree's cgroups (while `/sys/fs/cgroup` is still writable, before any of the program's code
 * runs, so no process of the tree escapes its limits), build the view in
 * `PLUGBOARD_SANDBOX_RULES` and make it the root (each private memory file system with its
 * size), with a narrowed `network` hand the app the listener its proxy answers on
 * (egress-channel.ts), leave the app's session (so no terminal of the person's can be
 * opened), drop every capability, restrict this thread with Landlock and the seccomp
 * filter, then `execve` the program named by the arguments, which inherits every
 * restriction on every thread it will have. A Bun script whose rules say `inPlace` runs in
 * this process instead, when every thread of it is confined (threads.ts): it then needs no
 * second Bun to start. Run by the launcher; not an API.
 */
import { closeSync, readSync, realpathSync, writeFileSync } from "node:fs";
import { trace } from "@plugboard/core/trace";
import { applyView } from "../view/apply-view.ts";
import { dropCapabilities, lastCapability } from "./capabilities.ts";
import { CHANNEL_FD, handOverListener } from "../network/egress-channel.ts";
import { execve } from "./exec.ts";
import { type LandlockRules, landlockAbi, RULES_FD, RULES_VARIABLE, restrictSelf, WORKSPACE_OPTION } from "./landlock.ts";
import { lastErrno, libc, sys } from "./libc.ts";
import { installSeccomp, type SeccompRules } from "./seccomp.ts";
import { ONE_THREAD, unconfinedThreads } from "./threads.ts";
import type { LimitRules } from "../limits/tree-limits.ts";
import type { View } from "../view/view.ts";

/** Everything the confining step applies, as the launcher passes it. */
export interface ConfinementRules {
  readonly view: View;
  readonly landlock: LandlockRules;
  readonly seccomp: SeccompRules;
  /** A narrowed `network`: the app's proxy is the only route out, its channel on fd `CHANNEL_FD`. */
  readonly egress?: true;
  /** The tree's limits (`ConfineOptions.limits`). */
  readonly limits?: LimitRules;
  /**
   * The program and its arguments, when the rules come on their descriptor: the step may
   * have started before the app knew which program it would run (`confineAhead`).
   */
  readonly argv?: readonly string[];
  /**
   * The program is a Bun script (`[Bun, SCRIPT, ...ARGS]`, on the Bun this step runs on): run
   * it in this process once confined (`require`, with `process.argv` and `process.env` its
   * own), unless a thread escaped the confinement; then `execve` it as any program.
   */
  readonly inPlace?: true;
}

const RLIMIT_NPROC = 6n;

/**
 * Confines this process with the rules in `env` and replaces it with `argv` (program first),
 * or with the program the rules name when they come on their descriptor; on failure writes
 * the reason and exits 126. Returns only when the program runs in place (`inPlace`): it has
 * then been loaded, and runs on from this process's event loop; what it exports is returned.
 */
export function confineAndExec(commandLine: readonly string[], environment: Readonly<Record<string, string | undefined>>): unknown {
  // `--workspace DIR` names what the step confines to, for `ps`; the rules say what it sees.
  const argv = commandLine[0] === WORKSPACE_OPTION ? commandLine.slice(2) : commandLine;
  const given = environment[RULES_VARIABLE];
  const early = given === `fd:${RULES_FD}`;
  if (given === undefined || (argv.length === 0 && !early)) {
    process.stderr.write(`usage: ${RULES_VARIABLE}=JSON bun confine-main.ts [${WORKSPACE_OPTION} DIR] PROGRAM [ARGS...]\n`);
    process.exit(2);
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment)) {
    if (name !== RULES_VARIABLE && !(name in ONE_THREAD) && value !== undefined) env[name] = value;
  }
  let script: readonly string[];
  try {
    trace("confine: started");
    // Started before its rules were made (`confineAhead`): they come on a descriptor, and nothing runs without them.
    // Meanwhile, what needs none of them: libc opened (Landlock's ABI asked through it) and the capabilities counted.
    if (early) {
      landlockAbi();
      lastCapability();
    }
    const rules = early ? rulesLine(RULES_FD) : given;
    trace("confine: rules read");
    const { view, landlock, seccomp, egress, limits, argv: named, inPlace } = JSON.parse(rules) as ConfinementRules;
    const [file, ...args] = early ? (named ?? []) : argv;
    if (file === undefined) throw new Error("no program to run: neither the command line nor the rules name one");
    // "0" is the writer: on v1 this thread alone (`tasks`), the one that execve's the program, which
    // leaves it the only thread; on v2 the process (`cgroup.procs`). Whatever it starts is counted from now on.
    for (const procs of limits?.cgroups ?? []) writeFileSync(procs, "0");
    trace("confine: cgroups joined");
    applyView(view, limits?.tmp);
    trace("confine: view mounted");
    if (egress === true) handOverListener(CHANNEL_FD);
    libc.setsid();
    if (limits?.nproc !== undefined) limitProcesses(limits.nproc);
    dropCapabilities();
    restrictSelf(landlock);
    trace("confine: landlock applied");
    installSeccomp(seccomp);
    trace("confine: seccomp installed");
    const unconfined = inPlace === true && runsOnThisBun(file, args) ? unconfinedThreads() : undefined;
    if (unconfined === undefined || unconfined.length > 0) {
      if (unconfined !== undefined) trace(`confine: threads started before the confinement (${unconfined.join(", ")})`);
      trace("confine: execve");
      execve(file, [file, ...args], env);
    }
    script = [file, ...args];
  } catch (error) {
    process.stderr.write(`plugboard sandbox: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(126);
  }
  // Confined, every thread: the script runs here, as `execve` would have started it. Outside
  // the `try`: what it throws is its own, reported by Bun as for any program.
  trace("confine: run in place");
  return runInPlace(script, env);
}

/** Whether `file ARGS` is a script run by the Bun this step runs on. */
function runsOnThisBun(file: string, args: readonly string[]): boolean {
  return args[0] !== undefined && !args[0].startsWith("-") && realpathSync(file) === realpathSync(process.execPath);
}

/** Loads `[Bun, SCRIPT, ...ARGS]` in this process with `env` as its environment and the command line it would have had; returns what it exports. */
function runInPlace(argv: readonly string[], env: Readonly<Record<string, string>>): unknown {
  for (const name of Object.keys(process.env)) delete process.env[name];
  Object.assign(process.env, env);
  process.argv = [...argv];
  return require(argv[1] ?? "");
}

/**
 * The one line of rules the app writes on `fd`, read up to its newline, then `fd` closed (the
 * program inherits nothing of it). Throws when `fd` ends first: an app that failed (or died)
 * before its rules were made leaves a confining step that runs nothing.
 */
function rulesLine(fd: number): string {
  const chunks: Buffer[] = [];
  const buffer = Buffer.alloc(64 * 1024);
  try {
    // A blocking pipe (the launcher's): each read waits for the app.
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) throw new Error("the rules ended before their line did: nothing is run");
      const chunk = buffer.subarray(0, read);
      const end = chunk.indexOf(10);
      chunks.push(Buffer.from(end < 0 ? chunk : chunk.subarray(0, end)));
      if (end >= 0) return Buffer.concat(chunks).toString("utf8");
    }
  } finally {
    closeSync(fd);
  }
}

/** Sets `RLIMIT_NPROC` (soft and hard) to `count`: counted per user namespace, binding every user but root. */
function limitProcesses(count: number): void {
  const limit = new BigUint64Array([BigInt(count), BigInt(count)]);
  if (sys("prlimit64", 0n, RLIMIT_NPROC, libc.pointer(limit), 0n) !== 0n) throw new Error(`setting RLIMIT_NPROC failed: errno ${lastErrno()}`);
}

if (import.meta.main) confineAndExec(process.argv.slice(2), process.env);
