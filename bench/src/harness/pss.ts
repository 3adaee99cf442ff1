/**
 * The proportional set size (PSS) of a process tree, from /proc: each process's `Pss:` line
 * of `/proc/PID/smaps_rollup`, which counts a page shared by n processes as 1/n in each, so
 * that the sum over a tree is what the tree costs the machine (Bun's own image, mapped by
 * every Bun of the tree, is counted once). RSS would count it in every process.
 */
import { readdirSync, readFileSync } from "node:fs";

/** One process of the tree. */
export interface TreeProcess {
  readonly pid: number;
  /** Its PSS in bytes (NaN when it ended before it was read). */
  readonly pssBytes: number;
  /** Its command line, split. */
  readonly argv: readonly string[];
}

/** `pid` and every process descended from it, parents first, each with its PSS. */
export function pssOfTree(pid: number): TreeProcess[] {
  const children = childrenByParent();
  const pids = [pid];
  for (let index = 0; index < pids.length; index++) pids.push(...(children.get(pids[index] ?? -1) ?? []));
  return pids.map((each) => ({ pid: each, pssBytes: pssBytes(each), argv: argvOf(each) }));
}

/** The sum of the tree's PSS, in bytes. */
export function totalPss(tree: readonly TreeProcess[]): number {
  return tree.reduce((sum, { pssBytes }) => sum + pssBytes, 0);
}

/** Every running process's children, from the parent field of `/proc/PID/stat`. */
function childrenByParent(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readOr(`/proc/${name}/stat`);
    // The command name (field 2) is in parentheses and may hold spaces: the fields after it are state, then the parent.
    const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (Number.isInteger(parent)) children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  return children;
}

function pssBytes(pid: number): number {
  const kilobytes = /^Pss:\s+(\d+) kB$/m.exec(readOr(`/proc/${pid}/smaps_rollup`))?.[1];
  return kilobytes === undefined ? Number.NaN : Number(kilobytes) * 1024;
}

function argvOf(pid: number): string[] {
  return readOr(`/proc/${pid}/cmdline`).split("\0").filter((arg) => arg !== "");
}

/** A /proc file's text, or "" for a process that ended meanwhile. */
function readOr(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}
