/**
 * What /proc says about processes, for tests that check what is left running: a census of
 * the processes a test can recognise (by name, arguments or environment), whether one pid
 * still runs, and the survivors after a grace period, killed so a failing test leaves none.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { pollFor } from "./wait-for.ts";

/** A process as /proc shows it; its arguments and environment are read when asked for. */
export interface ProcessEntry {
  readonly pid: number;
  /** Its command name (at most 15 characters): `sleep`, or the name of the link it was run by. */
  readonly name: string;
  /** Its state: `R` running, `S` sleeping, … `Z` a zombie (ended, not yet reaped). */
  readonly state: string;
  /** Its arguments, `argv[0]` first (which `exec -a NAME` sets). */
  readonly argv: readonly string[];
  /** Its environment as it started, `NAME=value` each. */
  readonly environ: readonly string[];
}

/** Which processes a census counts. */
export interface CensusOptions {
  /** Count zombies too. @default false */
  readonly zombies?: boolean;
}

/**
 * Pids of the processes `match` picks, the calling one excepted; running ones only unless
 * `zombies`. A process that ends while it is looked at, or cannot be read, is left out.
 *
 * @example processesWhere((process) => process.environ.includes(`MARKER=${marker}`))
 */
export function processesWhere(match: (process: ProcessEntry) => boolean, { zombies = false }: CensusOptions = {}): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    try {
      const entry = entryOf(pid);
      if (entry !== undefined && (zombies || !hasEnded(entry)) && match(entry)) found.push(pid);
    } catch {
      // The process ended while we looked, or is not ours to read.
    }
  }
  return found;
}

/** Pids of the running processes whose `argv[0]` is `marker` (as `exec -a MARKER` sets it). */
export function runningNamed(marker: string): number[] {
  return processesWhere((process) => process.argv[0] === marker);
}

/** Whether `pid` runs (a zombie has ended: it only waits to be reaped). */
export function isRunning(pid: number): boolean {
  const entry = entryOf(pid);
  return entry !== undefined && !hasEnded(entry);
}

/**
 * The processes still running after up to `ms` (a killed process takes a moment to go):
 * `which` is the pids to watch, or a census to repeat. Those left are then killed with
 * SIGKILL, so a failing test leaves none behind.
 *
 * @example expect(await survivors([server, child])).toEqual([]);
 * @example expect(await survivors(() => runningNamed(marker), 5000)).toEqual([]);
 */
export async function survivors(which: readonly number[] | (() => readonly number[]), ms = 2000): Promise<number[]> {
  const census = typeof which === "function" ? which : () => which.filter(isRunning);
  await pollFor(() => census().length === 0, { timeoutMs: ms, everyMs: 20 });
  const left = [...census()];
  killAll(left);
  return left;
}

/** `survivors` of the processes named `marker` (`runningNamed`): the escapees a command left. */
export function survivorsNamed(marker: string, ms = 2000): Promise<number[]> {
  return survivors(() => runningNamed(marker), ms);
}

/** Kills each of `pids` with SIGKILL; one already gone is no error. */
export function killAll(pids: readonly number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // It ended meanwhile.
    }
  }
}

/** The children of `pid` (none when it is gone). */
export function childrenOf(pid: number): number[] {
  const children = readOrEmpty(`/proc/${pid}/task/${pid}/children`);
  return children.trim().split(/\s+/).filter(Boolean).map(Number);
}

/** The pseudo-terminal (`/dev/pts/3`) that `pid` or one of its children holds open, if any. */
export function terminalOf(pid: number): string | undefined {
  for (const holder of [pid, ...childrenOf(pid)]) {
    try {
      for (const fd of readdirSync(`/proc/${holder}/fd`)) {
        const target = readlinkSync(`/proc/${holder}/fd/${fd}`);
        if (/^\/dev\/pts\/\d+$/.test(target)) return target;
      }
    } catch {
      // Gone, or not ours to read.
    }
  }
  return undefined;
}

function entryOf(pid: number): ProcessEntry | undefined {
  const stat = readOrEmpty(`/proc/${pid}/stat`);
  if (stat === "") return undefined;
  // `PID (NAME) STATE …`: the name may hold spaces and parentheses, the last `)` ends it.
  const close = stat.lastIndexOf(")");
  return {
    pid,
    name: stat.slice(stat.indexOf("(") + 1, close),
    state: stat.charAt(close + 2),
    get argv() {
      return nulSeparated(readFileSync(`/proc/${pid}/cmdline`, "utf8"));
    },
    get environ() {
      return nulSeparated(readFileSync(`/proc/${pid}/environ`, "utf8"));
    },
  };
}

function hasEnded(entry: ProcessEntry): boolean {
  return entry.state === "Z" || entry.state === "X";
}

function nulSeparated(text: string): string[] {
  return text === "" ? [] : text.replace(/\0$/, "").split("\0");
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
