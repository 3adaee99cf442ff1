/**
 * A confined tree's limits as this machine can enforce them: the process count in a pids
 * cgroup (else, for a user other than root, `RLIMIT_NPROC`, which the kernel does not apply
 * to root), memory in a memory cgroup where there is one, and a size on each private memory
 * file system everywhere. What the app makes before the tree starts (its cgroups) and what
 * the confining step applies (`LimitRules`); and the same as one line for `plugboard check`.
 */
import { type CgroupSupport, type Controller, cgroupSupport, makeTreeCgroups } from "./cgroups.ts";
import { formatSize, type Limits } from "./limits.ts";

/** What the confining step applies, as the launcher passes it. */
export interface LimitRules {
  /** The files the tree's first process writes itself into, joining its cgroups, before anything else runs (`TreeCgroups.joins`). */
  readonly cgroups: readonly string[];
  /** `RLIMIT_NPROC`, where no pids cgroup bounds the tree. */
  readonly nproc?: number;
  /** `size=` of each private memory file system, in bytes. */
  readonly tmp: number;
}

/** One tree's limits: the rules to pass on, and its cgroups' refusals and removal. */
export interface TreeLimits {
  readonly rules: LimitRules;
  /** How often the process and memory limits have refused so far. */
  refusals(): Readonly<Record<Controller, number>>;
  /** Removes the tree's cgroups once it has ended. */
  remove(): Promise<void>;
}

let support: CgroupSupport | undefined;
function supportHere(): CgroupSupport {
  support ??= cgroupSupport();
  return support;
}

/** Makes the cgroups of a tree bounded by `limits` (see cgroups.ts); throws when the kernel refuses one. */
export function limitTree(limits: Limits): TreeLimits {
  const here = supportHere();
  const cgroups = makeTreeCgroups(here, { pids: limits.processes, memory: limits.memory });
  const nproc = "folder" in here.pids || isRoot() ? undefined : limits.processes;
  return {
    rules: { cgroups: cgroups.joins, ...(nproc === undefined ? {} : { nproc }), tmp: limits.tmp },
    refusals: () => cgroups.refusals(),
    remove: () => cgroups.remove(),
  };
}

/** The limits in force, and what this machine lacks, as `plugboard check` prints them. */
export interface LimitsInForce {
  /** `processes 512 (pids cgroup v1), memory 2 GiB (memory cgroup v1), tmp 256 MiB each (tmpfs size)` */
  readonly inForce: string;
  readonly lacking: readonly string[];
}

/** What `limits` become on this machine. */
export function limitsInForce(limits: Limits): LimitsInForce {
  const here = supportHere();
  const parts: string[] = [];
  const lacking: string[] = [];
  const { pids, memory } = here;
  if ("folder" in pids) parts.push(`processes ${limits.processes} (pids cgroup v${pids.version})`);
  else if (!isRoot()) parts.push(`processes ${limits.processes} (RLIMIT_NPROC; no pids cgroup: ${pids.lacking})`);
  else lacking.push(`a process limit (RLIMIT_NPROC does not bind root, and there is no pids cgroup: ${pids.lacking})`);
  if ("folder" in memory) parts.push(`memory ${formatSize(limits.memory)} (memory cgroup v${memory.version})`);
  else lacking.push(`a memory limit (${memory.lacking})`);
  parts.push(`tmp ${formatSize(limits.tmp)} each (tmpfs size)`);
  return { inForce: parts.join(", "), lacking };
}

function isRoot(): boolean {
  return process.getuid?.() === 0;
}
